#!/bin/sh
# deps.sh check|install - the Debian packages dnnpart needs.
# check: exits 1 naming each missing package; install: apt-get installs them.
set -u
mode=${1:-check}

# "probe package" pairs: a pkg-config module, a header (/path) or a command.
need='
libcgraph libgraphviz-dev
libgvc libgraphviz-dev
libcjson libcjson-dev
ncursesw libncurses-dev
/usr/include/metis.h libmetis-dev
cbc coinor-libcbc-dev
pkg-config pkg-config
cc gcc
make make
tmux tmux
dot graphviz
rsvg-convert librsvg2-bin
torch python3-torch
torchvision python3-torchvision
'

missing=''
have() {
	case "$1" in
	/*) [ -e "$1" ] ;;
	# the PyTorch bridge (tools/from_pytorch.py, tests/suite_pytorch.sh)
	# runs on Debian's python3 and its python3-torch
	torch) /usr/bin/python3 -c 'import torch, torch.fx' >/dev/null 2>&1 ;;
	# its torchvision models: tests/suite_pytorch.sh, tools/torch_samples.sh
	torchvision) /usr/bin/python3 -c 'import torchvision.models' >/dev/null 2>&1 ;;
	lib*|ncursesw|cbc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1" ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}
add_missing() {
	case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
}
echo "$need" | while read -r probe pkg; do
	[ -n "$probe" ] || continue
	have "$probe" || echo "$pkg"
done > /tmp/dnnpart-deps.$$
for p in $(cat /tmp/dnnpart-deps.$$); do add_missing "$p"; done
rm -f /tmp/dnnpart-deps.$$

if [ -z "$missing" ]; then
	[ "$mode" = install ] && echo "deps: all Debian packages are installed"
	exit 0
fi

if [ "$mode" = install ]; then
	echo "deps: installing:$missing"
	SUDO=''
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq || exit 1
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing || exit 1
	exit 0
fi

echo "dnnpart: missing Debian packages:$missing" >&2
echo "  install them with:  make deps   (or: apt-get install$missing)" >&2
exit 1
