"""Test harnesses, kept apart from the product as gpiozero keeps its fixtures: generated games
with faults for the referee (``faults``) and rendered scenes for the whole pipeline
(``scenes``). The tests and the benchmarks use them; nothing the device runs imports them."""
