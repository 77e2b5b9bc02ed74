"""What runs next to student code, inside the sandbox: nothing here decides points."""
