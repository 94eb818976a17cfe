#!/usr/bin/env bash
# Install gobblet-companion as a service on Raspberry Pi OS (Bookworm, 64-bit), then start it.
#
#   sudo systemd/install.sh            install or upgrade, enable and start
#   sudo systemd/install.sh --no-start install or upgrade and enable, but do not start now
#
# What it does, in order:
#   1. apt: python3-picamera2 (the camera), python3-lgpio (gpiozero's pin library on a Pi 5
#      and on Bookworm), python3-gpiozero, python3-numpy, python3-aiohttp (the web page),
#      python3-venv, espeak-ng (the referee's voice; speech.enabled = false silences it).
#   2. a system user "gobblet" in the gpio, video and audio groups.
#   3. the program in /opt/gobblet-companion/src (owned by root, not by whoever owns the
#      checkout; copied afresh, so files removed from the program are removed there too) and a
#      venv in /opt/gobblet-companion/venv made with --system-site-packages, so the venv sees
#      apt's picamera2 and lgpio.
#   4. numpy stays apt's: picamera2 and simplejpeg from apt are built against it, and a numpy
#      2.x from pip in the venv breaks them ("numpy.dtype size changed"). pip gets a constraint
#      file pinning numpy to apt's version, and opencv-python-headless below 4.12 (4.12 and
#      later need numpy 2).
#   5. /etc/gobblet-companion/config.toml (kept if it exists), the unit, enable, start.
#
# Variables: PREFIX (default /opt/gobblet-companion), SERVICE_USER (default gobblet).
set -euo pipefail
umask 022

PREFIX="${PREFIX:-/opt/gobblet-companion}"
SERVICE_USER="${SERVICE_USER:-gobblet}"
UNIT_NAME="gobblet-companion.service"
STATE_DIR="/var/lib/gobblet-companion"
STATE_MODE=0750 # the unit's StateDirectoryMode: systemd would otherwise change it at every start
CONFIG_DIR="/etc/gobblet-companion"
APT_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-lgpio python3-gpiozero python3-numpy python3-aiohttp espeak-ng)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(dirname "$here")"
start_now=1

say() { printf 'install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

parse_arguments() {
  for argument in "$@"; do
    case "$argument" in
      --no-start) start_now=0 ;;
      -h|--help) sed -n '/^set -euo/q; 2,$p' "${BASH_SOURCE[0]}"; exit 0 ;;
      *) die "unknown option $argument (use --no-start or --help)" ;;
    esac
  done
}

check_machine() {
  [ "$(id -u)" -eq 0 ] || die "run as root: sudo $0"
  command -v apt-get >/dev/null || die "this installer is for Raspberry Pi OS (Debian, apt)"
  command -v systemctl >/dev/null || die "systemd is needed"
  [ -f "$source_dir/pyproject.toml" ] || die "run the script from a checkout: $source_dir has no pyproject.toml"
  if ! grep -qs "Raspberry Pi" /proc/device-tree/model; then
    say "warning: this is not a Raspberry Pi; the service needs a camera and GPIO pins"
  fi
}

install_packages() {
  say "installing ${APT_PACKAGES[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_PACKAGES[@]}"
}

make_user() {
  if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    say "creating system user $SERVICE_USER"
    useradd --system --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
  fi
  local group
  for group in gpio video audio; do
    if getent group "$group" >/dev/null; then
      usermod -a -G "$group" "$SERVICE_USER"
    else
      say "warning: group $group does not exist; the service may not reach the ${group} devices"
    fi
  done
}

copy_program() {
  # A fresh copy beside the old one, then swapped in: files the new version no longer has do
  # not linger, and an interrupted copy leaves the old program whole. Owned by root (tar
  # would keep the checkout owner's uid), not writable by the service.
  local new="$PREFIX/src.new" old="$PREFIX/src.old"
  say "copying the program to $PREFIX/src"
  install -d -m 0755 "$PREFIX"
  rm -rf "$new" "$old"
  install -d -m 0755 "$new"
  tar -C "$source_dir" --exclude=.git --exclude=.venv --exclude='__pycache__' --owner=0 --group=0 -cf - . \
    | tar -C "$new" --no-same-owner --no-same-permissions -xf -
  chown -R 0:0 "$new"
  chmod -R u+rwX,go+rX,go-w "$new"
  if [ -d "$PREFIX/src" ]; then mv "$PREFIX/src" "$old"; fi
  mv "$new" "$PREFIX/src"
  rm -rf "$old"
}

make_venv() {
  local venv="$PREFIX/venv" constraints="$PREFIX/constraints.txt" numpy_version
  if [ ! -x "$venv/bin/python" ]; then
    say "creating $venv (with the system site packages)"
    python3 -m venv --system-site-packages "$venv"
  fi
  numpy_version="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"
  printf 'numpy==%s\nopencv-python-headless<4.12\n' "$numpy_version" >"$constraints"
  say "installing gobblet-companion into $venv (numpy kept at apt's $numpy_version)"
  "$venv/bin/python" -m pip install -q --constraint "$constraints" "$PREFIX/src"
  "$venv/bin/python" -c 'import numpy, cv2, gpiozero, lgpio, picamera2, companion' \
    || die "the venv cannot import numpy, cv2, gpiozero, lgpio, picamera2 and companion together"
}

install_config() {
  install -d -m 0755 "$CONFIG_DIR"
  if [ ! -f "$CONFIG_DIR/config.toml" ]; then
    say "writing the default pin table to $CONFIG_DIR/config.toml"
    install -m 0644 "$source_dir/hardware/config.toml" "$CONFIG_DIR/config.toml"
  fi
  install -d -m "$STATE_MODE" -o "$SERVICE_USER" -g "$SERVICE_USER" "$STATE_DIR"
}

install_unit() {
  say "installing /etc/systemd/system/$UNIT_NAME"
  install -m 0644 "$here/$UNIT_NAME" "/etc/systemd/system/$UNIT_NAME"
  systemctl daemon-reload
  systemctl enable "$UNIT_NAME"
  if [ "$start_now" -eq 1 ]; then
    systemctl restart "$UNIT_NAME"
    say "started; follow it with: journalctl -u ${UNIT_NAME%.service} -f"
  else
    say "enabled; it starts at the next boot (or: systemctl start ${UNIT_NAME%.service})"
  fi
  if [ ! -f "$STATE_DIR/calibration.json" ]; then
    say "no calibration yet: the alert LED blinks until the empty board has been seen (see hardware/README.md)"
  fi
}

main() {
  parse_arguments "$@"
  check_machine
  install_packages
  make_user
  copy_program
  make_venv
  install_config
  install_unit
}

# Sourced (the tests call one step at a time), nothing runs.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
