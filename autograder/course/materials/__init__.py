"""What the course hands out: nbgrader's commands and the release, the exchange's outbound
check, example notebooks, the demo's course, the walkthroughs.
"""
