"""Helpers more than one test folder uses: scripted-provider scripts, session checks."""
