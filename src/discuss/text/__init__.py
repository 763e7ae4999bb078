"""Text in and out of a discussion: names, token bounds, replies read, prompts written, keys kept out.

Pure functions over strings and the domain's values; nothing here reads a
project or makes a call, so every layer above may use it.
"""
