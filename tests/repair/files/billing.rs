//! Invoice computation for the billing service.

use std::collections::BTreeMap;

use crate::model::{Customer, Invoice, LineItem, TaxRegion};

/// Discount applied to orders above the threshold, in percent.
pub const BULK_DISCOUNT_PERCENT: u32 = 7;
/// Orders at or above this amount (in cents) get the bulk discount.
pub const BULK_THRESHOLD_CENTS: u64 = 250_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    pub net_cents: u64,
    pub tax_cents: u64,
    pub gross_cents: u64,
}

pub fn line_total(item: &LineItem) -> u64 {
    item.unit_price_cents * u64::from(item.quantity)
}

pub fn apply_discount(net_cents: u64) -> u64 {
    if net_cents >= BULK_THRESHOLD_CENTS {
        net_cents - net_cents * u64::from(BULK_DISCOUNT_PERCENT) / 100
    } else {
        net_cents
    }
}

pub fn tax_rate_basis_points(region: TaxRegion) -> u64 {
    match region {
        TaxRegion::Domestic => 1_900,
        TaxRegion::EuropeanUnion => 2_100,
        TaxRegion::Export => 0,
    }
}

pub fn compute_totals(customer: &Customer, items: &[LineItem]) -> Totals {
    let subtotal_cents: u64 = items.iter().map(line_total).sum();
    let discounted_cents = apply_discount(subtotal_cents);
    let rate = tax_rate_basis_points(customer.region);
    let tax_cents = discounted_cents * rate / 10_000;
    Totals {
        net_cents: discounted_cents,
        tax_cents,
        gross_cents: discounted_cents + tax_cents,
    }
}

pub fn group_by_sku(items: &[LineItem]) -> BTreeMap<String, u32> {
    let mut grouped = BTreeMap::new();
    for item in items {
        *grouped.entry(item.sku.clone()).or_insert(0) += item.quantity;
    }
    grouped
}

pub fn build_invoice(customer: &Customer, items: Vec<LineItem>) -> Invoice {
    let totals = compute_totals(customer, &items);
    let reference = format!("INV-{}-{:06}", customer.code, customer.next_sequence);
    Invoice {
        reference,
        customer_id: customer.id,
        items,
        net_cents: totals.net_cents,
        tax_cents: totals.tax_cents,
        gross_cents: totals.gross_cents,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discount_starts_at_the_threshold() {
        assert_eq!(apply_discount(BULK_THRESHOLD_CENTS - 1), BULK_THRESHOLD_CENTS - 1);
        assert_eq!(apply_discount(300_000), 279_000);
    }
}
