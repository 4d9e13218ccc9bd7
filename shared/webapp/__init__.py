"""The web app /app/: pending confirmations for the logged-in user, where a click executes too."""
