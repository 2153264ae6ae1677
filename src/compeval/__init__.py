"""compeval: does a text representation capture compositional meaning?"""
__version__ = "0.1.0"
