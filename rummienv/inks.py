"""The colours people see pieces in, shared by the env's pictures and the replay page so both look alike."""

TILE_INK = {0: (25, 25, 25), 1: (30, 80, 210), 2: (225, 120, 0), 3: (205, 30, 40)}  # black, blue, orange, red
JOKER_INK = (150, 40, 160)
SUIT_INK = {"S": (25, 25, 25), "C": (25, 25, 25), "H": (205, 30, 40), "D": (205, 30, 40)}


def hex_ink(rgb: tuple[int, int, int]) -> str:
    """A colour as the page's script writes it (``#rrggbb``)."""
    return "#" + "".join(f"{c:02x}" for c in rgb)
