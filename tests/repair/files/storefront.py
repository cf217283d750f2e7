"""Labels and endpoints of the shop front, pasted from the localisation sheet."""

STORE_NAME = "Café du Nord"

LABELS = {
    "menu_title": "Carte du café",
    "opening_hours": "Ouvert de 8 h à 19 h",
    "price_prefix": "Prix :",
    "basket_total": "Total du panier : {amount} €",
    "checkout": "Passer commande",
}

API_BASE = "https://api.​cafe-du-nord.example/v1"
CHECKOUT_PATH = "/orders/​checkout"


def format_price(amount_cents, currency="€"):
    """Format a price the French way: comma decimals, space before the sign."""
    euros, cents = divmod(amount_cents, 100)
    return f"{euros},{cents:02d} {currency}"


def greeting(name):
    return f"Bonjour {name}, bienvenue au café !"
