"""The sandbox's HTTP layer: one module per API area, each a list of ``ROUTES``.

A handler parses the request's parameters, calls one rule function of its area and returns the
result; the rules live in the area's modules one level up, which know nothing of HTTP.
"""
