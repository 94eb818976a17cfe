"""Vision: turn camera frames of a Gobblet board into per-square observations."""
