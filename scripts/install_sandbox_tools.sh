#!/usr/bin/env bash
# Installs what `autograder grade`'s OS sandbox needs from the distribution:
# bubblewrap and libseccomp. As root it installs them; with password-less sudo
# it uses sudo; otherwise it says what to install and leaves the machine alone
# (`autograder grade` then stops with the same advice unless given --sandbox process).
set -u
[ "$(uname -s)" = Linux ] || { echo "OS sandbox: not Linux; grade with --sandbox process or on Linux."; exit 0; }
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing+=(libseccomp2)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else
  echo "OS sandbox: please install ${missing[*]} (e.g. sudo apt-get install ${missing[*]})."; exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  "${sudo[@]}" apt-get update -qq >/dev/null && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  "${sudo[@]}" dnf install -y -q bubblewrap libseccomp
else
  echo "OS sandbox: please install ${missing[*]} with your distribution's package manager."
fi
exit 0
