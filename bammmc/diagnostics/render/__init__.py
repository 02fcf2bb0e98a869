"""Diagnostic renderers, one module per output form: ``human``, ``json``, ``sarif``."""
