"""Benchmarks behind ``specbid bench …``: each prints one JSON object of medians and ratios."""
