"""Operator analytics: a record per answered question (records.py, recorder.py, store*.py) and the report over
them (report.py, gaps.py) behind GET /v1/admin/analytics and the /admin page. docs/analytics.md."""
