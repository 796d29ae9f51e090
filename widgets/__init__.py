"""ipywidgets admin panels (channel folders, linkifiers, groups, invitations, status)."""
