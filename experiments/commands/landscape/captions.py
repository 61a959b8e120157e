"""The landscape command's words (paragraphs, the figures' captions, long titles and labels), in
``captions.md`` beside this file (``CAPTIONS``); ``landscape`` and ``equilibrium_map`` fill them."""

from experiments.harness import templates

CAPTIONS = templates.load(__package__)
