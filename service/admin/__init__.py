"""The /admin analytics page: static index.html, admin.js and admin.css (served by service/api/routes/admin.py)."""
