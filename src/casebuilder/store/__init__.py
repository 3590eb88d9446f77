"""The shared store below every stage: the case home on disk, its configuration, and the
relational database (SQLAlchemy 2, SQLite by default, PostgreSQL-ready) with its migrations.
"""
