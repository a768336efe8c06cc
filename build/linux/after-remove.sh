#!/bin/sh
# deb post-remove: the CLI wrapper goes with the app.
rm -f /usr/bin/toolgate
