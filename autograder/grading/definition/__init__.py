"""What an exercise is: its groups and cases, calls and fresh draws, an answered part and
the by-hand hook it may carry.
"""
