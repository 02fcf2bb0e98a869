"""Frontends: input text -> IR jobs with source maps. One module per input format."""
