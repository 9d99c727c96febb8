"""Classroom exercises: stubs a student fills in, graded by the pristine tests, with hints and trace feedback.

``catalog`` lists the exercises and their hints, ``stubs`` turns the
solution-bearing ``sources/`` into stubs and writes a workspace, ``harness``
is what the pristine ``tests/`` import, ``runner`` runs one exercise's tests in
a subprocess and ``grader`` runs them all and prints the table.
"""
