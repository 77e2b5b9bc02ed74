"""What crosses about the batch's store of compiled programs (sandbox.shared_programs).

A `Load` request names the child's cache mode: READ (copy the store in and
only read it) or WRITE (the child that builds the store). The writing child
sends its cache entries back by name; both sides accept only names of this
form, and at most MAX_BYTES in all.
"""

from __future__ import annotations

import re

READ, WRITE = "read", "write"
MAX_BYTES = 256 << 20
ENTRY = re.compile(r"^jit_(?P<name>.+)-[0-9a-f]{64}(-cache|-atime)?$")
