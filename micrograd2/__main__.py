"""``python -m micrograd2``: the same program as the ``micrograd2`` command."""
from micrograd2.cli import main

main(prog_name="micrograd2")
