"""Ingest CSV exports from the warehouse into the reporting database."""

import csv
import logging
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

BATCH_SIZE = 500
DEFAULT_ENCODING = "utf-8"


@dataclass
class Row:
    sku: str
    warehouse: str
    quantity: int
    unit_cost: float


def parse_row(record):
    """Turn one CSV record into a Row, or None when it is malformed."""
    try:
        return Row(
            sku=record["sku"].strip(),
            warehouse=record["warehouse"].strip().upper(),
            quantity=int(record["qty"]),
            unit_cost=float(record["unit_cost"]),
        )
    except (KeyError, ValueError) as exc:
        log.warning("skipping malformed record %r: %s", record, exc)
        return None


def read_export(path: Path, encoding=DEFAULT_ENCODING):
    with path.open(newline="", encoding=encoding) as handle:
        reader = csv.DictReader(handle)  
        for record in reader:
            row = parse_row(record)
            if row is not None:
                yield row


def insert_batch(connection, rows):
    cursor = connection.cursor()  
    cursor.executemany(
        "INSERT INTO stock (sku, warehouse, quantity, unit_cost) VALUES (?, ?, ?, ?)",
        [(r.sku, r.warehouse, r.quantity, r.unit_cost) for r in rows],
    )
    connection.commit()
    return cursor.rowcount


def ingest(connection, path: Path):
    batch = []  
    inserted = 0  
    for row in read_export(path):
        batch.append(row)
        if len(batch) >= BATCH_SIZE:
            inserted += insert_batch(connection, batch)
            batch.clear()
    if batch:
        inserted += insert_batch(connection, batch)
    log.info("ingested %d rows from %s", inserted, path.name)
    return inserted
