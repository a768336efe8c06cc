#!/bin/sh
# deb post-install: put the CLI on PATH. It runs bin/toolgate.js inside the app with the app's own
# Electron binary as Node (ELECTRON_RUN_AS_NODE=1), the same command `toolgate connect` writes.
cat > /usr/bin/toolgate <<'SH'
#!/bin/sh
ELECTRON_RUN_AS_NODE=1 exec "/opt/Toolgate/toolgate" "/opt/Toolgate/resources/app.asar/bin/toolgate.js" "$@"
SH
chmod 755 /usr/bin/toolgate
