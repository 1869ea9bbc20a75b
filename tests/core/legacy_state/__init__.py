"""A state folder written by an older engine, kept to prove newer ones still open it."""
