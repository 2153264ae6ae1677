"""Syntactic-invariance suite (Cheung & Penn 2012): relation classification and restricted QA."""
