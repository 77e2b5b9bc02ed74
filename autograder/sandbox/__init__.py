"""Running untrusted submissions in a child process that speaks only data."""
