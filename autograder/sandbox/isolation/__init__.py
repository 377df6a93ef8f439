"""The sandboxes: the Sandbox protocol and its Launch, bubblewrap (with warm zygotes), the
weak fallback, the preflight and warm checks, the choice between them.
"""
