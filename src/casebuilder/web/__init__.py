"""The web interface: a thin front end over the library, as the CLI is (``casebuilder
serve``). Every page and form goes through one guard that checks the session and the role
(preservation/access.toml) and logs what was read to the custody log with the user as actor."""
