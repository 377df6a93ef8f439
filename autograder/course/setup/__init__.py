"""The course directory: where it is, its lock, secret, privacy, roster, offerings, and the
settings written for students and for a hub.
"""
