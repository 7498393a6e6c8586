"""One module per ``manage.py`` command (see ``dashboard.management``)."""
