"""copa's suite tools: the runner (copa-run), the roofline charts (copa-roofline) and the
regression report (copa-compare). Standard library plus matplotlib; run with /usr/bin/python3."""
