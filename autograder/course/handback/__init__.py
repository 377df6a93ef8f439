"""What goes back: each student's feedback page, its release, and the exports (CSV, Moodle,
Canvas).
"""
