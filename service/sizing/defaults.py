"""Defaults shared by every caller of the sizing tools, defined once.

DEFAULT_GPU is the card an answer assumes when the user names none (and says so as an assumption): the most common
training GPU in published runs and cloud catalogs.
"""

DEFAULT_GPU = "h100-sxm"
