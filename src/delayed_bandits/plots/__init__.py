"""Paper-specific figures; each module maps a figure ``kind`` to a function returning a figure."""
