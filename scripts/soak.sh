#!/usr/bin/env bash
# make soak: edged under a robot's full load for SOAK_SECONDS (default 600),
# with its infrastructure failing around it, then checks that nothing was
# lost and that memory stayed flat. See soak/README.md for what is
# measured and how.
#
# Starts (all on free ports on 127.0.0.1, all stopped on exit):
#   rosmaster, mosquitto (persistence on), `edged sink`, `bin/edged run`,
#   soak/pub.cpp (roscpp): SOAK_CAMERAS (3) cameras of 1280x720
#   CompressedImage at SOAK_IMG_HZ (30), JointState at SOAK_JOINT_HZ (500),
#   and a String FSM cycling IDLE -> reach -> grasp -> lift -> place.
# Faults: the broker is restarted at random moments, SOAK_BROKER_EVERY
# seconds (60) apart on average (uniform in half to one and a half of it),
# without persistence (SOAK_BROKER_PERSIST=1 keeps it: then restarts lose
# nothing and repair has nothing to do), so what it took and had not
# delivered is lost and must be repaired (the robot keeps it until the
# sink acknowledges the episode); the
# master once (at 35% of the run), one camera publisher is killed (SIGKILL)
# and restarted once (at 62%, after the master restart, so that edged must
# have registered again with the new master to find it).
# At the end: /metrics is read, edged gets SIGTERM, edged starts again
# (no ROS publisher left: it only answers the sink's repair requests from
# its outbox), the sink drains, and
# soak/check.py prints the summary and fails on lost segments or manifests,
# lost sheets beyond the outbox's evictions, memory growth >= 10%, or a
# camera that did not come back after its publisher restarted.
#
# Env: SOAK_SECONDS, SOAK_CAMERAS, SOAK_IMG_HZ, SOAK_JOINT_HZ,
# SOAK_BROKER_EVERY, SOAK_BROKER_DOWN (2 s), SOAK_MASTER_DOWN (3 s),
# SOAK_QUEUE_SIZE (edged's ros.queue_size; default: edged's default),
# SOAK_PROFILE (1: a CPU profile of edged, its runtime frames summarized),
# SOAK_DIR (work directory; default a new one under /tmp, kept and printed).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DUR=${SOAK_SECONDS:-600}
CAMERAS=${SOAK_CAMERAS:-3}
IMG_HZ=${SOAK_IMG_HZ:-30}
JOINT_HZ=${SOAK_JOINT_HZ:-500}
BROKER_EVERY=${SOAK_BROKER_EVERY:-60}
BROKER_PERSIST=${SOAK_BROKER_PERSIST:-0}
# The soak's repair timing: short, so that what restarts lost comes back
# within the drain (edged's defaults are 5m and 30s).
RESEND_AFTER=20s REPAIR_AFTER=5s
BROKER_DOWN=${SOAK_BROKER_DOWN:-2}
MASTER_DOWN=${SOAK_MASTER_DOWN:-3}
# SOAK_PROFILE=1: edged run --cpuprofile WORK/edged.pprof, and the summary
# splits the runtime's frames of it (profiling costs a little CPU itself).
PROFILE=$([ "${SOAK_PROFILE:-0}" = 1 ] && echo 1 || true)
PY=/usr/bin/python3
EDGED=${EDGED:-$ROOT/bin/edged} # EDGED=PATH: another build (A/B runs)
ROBOT=soak-robot
MP4=$ROOT/../shared/data/pan720p.mp4

die() { echo "soak: $*" >&2; exit 2; }
for bin in rosmaster mosquitto g++ pkg-config ffmpeg curl; do
  command -v "$bin" >/dev/null || die "$bin is not installed (run make deps)"
done
pkg-config --exists roscpp || die "libroscpp-dev is not installed (run make deps)"
[ -x "$EDGED" ] || die "$EDGED is missing (run make build, or make soak)"
((DUR >= 30)) || die "SOAK_SECONDS must be at least 30"

WORK=${SOAK_DIR:-$(mktemp -d /tmp/edged-soak.XXXXXX)}
rm -rf "$WORK"/{data,sink,logs,metrics,frames,mosquitto,ros,events.tsv,samples.tsv,run.env,local.json,metrics-final.txt,edged.pprof}
mkdir -p "$WORK"/{logs,metrics,frames,ros/log}
export ROS_HOME=$WORK/ros ROS_LOG_DIR=$WORK/ros/log ROS_IP=127.0.0.1
unset ROS_HOSTNAME

declare -A PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() { # start NAME CMD...: own process group, output appended to logs/NAME.log
  # Started from a subshell, so not this shell's job: no "Killed" notices
  # (edged, whose exit code matters, is started as a job instead).
  local name=$1; shift
  PIDS[$name]=$( (setsid "$@" >>"$WORK/logs/$name.log" 2>&1 </dev/null & echo $!) )
}
gone() { # gone PID: exited (a zombie of ours counts as exited)
  ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
stop() { # stop NAME [SIGNAL]: signal the group, wait for the leader
  local name=$1 sig=${2:-TERM} pid=${PIDS[$1]:-}
  [ -n "$pid" ] || return 0
  kill "-$sig" -- "-$pid" 2>/dev/null || true
  for _ in $(seq 100); do gone "$pid" && break; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  for _ in $(seq 20); do gone "$pid" && break; sleep 0.1; done
  unset "PIDS[$name]"
}
now() { date +%s.%N; }
event() { echo "$(now) $*" >>"$WORK/events.tsv"; echo "soak: [$(elapsed)s] $*"; }
elapsed() { echo $(($(date +%s) - ${T0S:-$(date +%s)})); }
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # wait_for SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s
  local secs=$1 what=$2; shift 2
  for _ in $(seq $((secs * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  die "$what did not come up within ${secs}s (logs: $WORK/logs)"
}

echo "soak: work directory $WORK"
echo "soak: building the roscpp publisher"
g++ -O2 -std=c++17 -o "$WORK/pub" soak/pub.cpp $(pkg-config --cflags --libs roscpp)

if [ -r "$MP4" ]; then
  echo "soak: camera frames from $MP4"
  ffmpeg -loglevel error -y -i "$MP4" -vf scale=1280:720 -q:v 3 "$WORK/frames/f%04d.jpg"
else
  echo "soak: $MP4 is absent; generating 1280x720 test frames"
  ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 300 -q:v 3 "$WORK/frames/f%04d.jpg"
fi
NFRAMES=$(ls "$WORK/frames" | wc -l)

MPORT=$(free_port) QPORT=$(free_port) HPORT=$(free_port)
export ROS_MASTER_URI=http://127.0.0.1:$MPORT
master_up() { $PY -c "import xmlrpc.client as x; x.ServerProxy('$ROS_MASTER_URI').getPid('/soak')"; }
start_master() {
  start master rosmaster --core -p "$MPORT" -w 4
  wait_for 20 rosmaster master_up
}
broker_up() { $PY -c "import socket; socket.create_connection(('127.0.0.1', $QPORT), 1)"; }
start_broker() {
  start broker mosquitto -c "$WORK/mosquitto.conf"
  wait_for 20 mosquitto broker_up
}
mkdir -p "$WORK/mosquitto"
# As root mosquitto would drop to the mosquitto user, which cannot write
# the persistence directory: a restart would then lose the sink's session.
cat >"$WORK/mosquitto.conf" <<EOF
user $(id -un)
listener $QPORT 127.0.0.1
allow_anonymous true
persistence $([ "$BROKER_PERSIST" = 1 ] && echo true || echo false)
persistence_location $WORK/mosquitto/
log_dest stderr
max_queued_messages 100000
max_queued_bytes 0
EOF

cam_topic() { echo "/soak/cam$1/image_raw/compressed"; }
start_camera() { start "cam$1" "$WORK/pub" camera "$(cam_topic "$1")" "$IMG_HZ" "$WORK/frames" $(($1 * NFRAMES / CAMERAS)); }

CFG=$WORK/edged.yaml
{
  echo "robot_id: $ROBOT"
  echo "data_dir: $WORK/data"
  echo "ros: {master_uri: \"$ROS_MASTER_URI\"${SOAK_QUEUE_SIZE:+, queue_size: $SOAK_QUEUE_SIZE}}"
  echo "cameras:"
  for ((c = 0; c < CAMERAS; c++)); do echo "  - topic: $(cam_topic $c)"; done
  echo "joints:"
  echo "  - topic: /soak/joint_states"
  echo "fsm:"
  echo "  - topic: /soak/task_state"
  echo "    type: string"
  echo "    idle_states: [IDLE]"
  echo "uplink: {broker: \"tcp://127.0.0.1:$QPORT\", resend_after: $RESEND_AFTER}"
  echo "http: {listen: \"127.0.0.1:$HPORT\"}"
} >"$CFG"
"$EDGED" config check "$CFG" >"$WORK/effective.yaml"

echo "soak: rosmaster :$MPORT, mosquitto :$QPORT, edged http :$HPORT"
start_master
start_broker
start sink "$EDGED" sink --broker "tcp://127.0.0.1:$QPORT" --out "$WORK/sink" --repair-after "$REPAIR_AFTER"
start robot "$WORK/pub" robot /soak/joint_states "$JOINT_HZ" /soak/task_state
for ((c = 0; c < CAMERAS; c++)); do start_camera $c; done
setsid "$EDGED" run --config "$CFG" ${PROFILE:+--cpuprofile "$WORK/edged.pprof"} >>"$WORK/logs/edged.log" 2>&1 </dev/null &
EDGED_PID=$!
PIDS[edged]=$EDGED_PID
wait_for 30 "edged run" grep -q "daemon: running" "$WORK/logs/edged.log"
wait_for 10 "edged's /metrics" curl -sf "http://127.0.0.1:$HPORT/metrics"
T0=$(now) T0S=$(date +%s)
CLK_TCK=$(getconf CLK_TCK)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$EDGED_PID/stat"; } # utime + stime
# Context switches of every edged thread (voluntary + nonvoluntary): the
# process's own status counts only its main thread's.
ctxt_switches() { cat "/proc/$EDGED_PID"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches:/ {s += $2} END {print s + 0}'; }
sample() { # t rss_kb edged_ticks machine_busy machine_total edged_ctxt_switches
  local rss busy total
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$EDGED_PID/status")
  read -r busy total < <(awk '/^cpu / {t=0; for (i=2;i<=NF;i++) t+=$i; print t-$5-$6, t}' /proc/stat)
  echo "$(now) $rss $(cpu_ticks) $busy $total $(ctxt_switches)" >>"$WORK/samples.tsv"
  curl -sf -o "$WORK/metrics/$(now).txt" "http://127.0.0.1:$HPORT/metrics" || true
}
alive() { kill -0 "$EDGED_PID" 2>/dev/null || die "edged exited during the soak (log: $WORK/logs/edged.log)"; }

MASTER_AT=$((DUR * 35 / 100))
CAM_AT=$((DUR * 62 / 100))
RESTART_CAM=$((CAMERAS > 1 ? 1 : 0))
broker_gap() { echo $((BROKER_EVERY / 2 + RANDOM % (BROKER_EVERY + 1))); }
next_broker=$(broker_gap) next_sample=0 master_done=0 cam_done=0
echo "soak: running ${DUR}s: broker restarts about every ${BROKER_EVERY}s (persistence $BROKER_PERSIST), master restart at ${MASTER_AT}s," \
  "camera $RESTART_CAM publisher restart at ${CAM_AT}s"
event start
while :; do
  alive
  t=$(elapsed)
  ((t >= DUR)) && break
  if ((t >= next_sample)); then sample; next_sample=$((next_sample + 10)); fi
  if ((t >= next_broker && t < DUR - 10)); then
    event broker_down; stop broker; sleep "$BROKER_DOWN"; start_broker; event broker_up
    next_broker=$((next_broker + $(broker_gap)))
  elif ((!master_done && t >= MASTER_AT)); then
    event master_down; stop master; sleep "$MASTER_DOWN"; start_master; event master_up
    master_done=1
  elif ((!cam_done && t >= CAM_AT)); then
    event "camera_kill $(cam_topic $RESTART_CAM)"; stop "cam$RESTART_CAM" KILL; sleep 2
    start_camera $RESTART_CAM; event "camera_start $(cam_topic $RESTART_CAM)"
    cam_done=1
  fi
  sleep 0.5
done

sample
curl -sf -o "$WORK/metrics-final.txt" "http://127.0.0.1:$HPORT/metrics" || die "cannot read edged's /metrics"
CPU_END=$(cpu_ticks)
T_STOP=$(now)
event sigterm
kill -TERM "$EDGED_PID"
for _ in $(seq 300); do kill -0 "$EDGED_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$EDGED_PID" 2>/dev/null; then
  event "edged still running 30s after SIGTERM; killing it"
  stop edged KILL
  EXIT_CODE=killed
else
  set +e; wait "$EDGED_PID"; EXIT_CODE=$?; set -e
  unset "PIDS[edged]"
fi
T_EXIT=$(now)
event "edged exited ($EXIT_CODE)"
for ((c = 0; c < CAMERAS; c++)); do stop "cam$c"; done
stop robot

cat >"$WORK/run.env" <<EOF
T0=$T0
T_STOP=$T_STOP
T_EXIT=$T_EXIT
EXIT_CODE=$EXIT_CODE
CPU_END=$CPU_END
CLK_TCK=$CLK_TCK
CAMERAS=$CAMERAS
IMG_HZ=$IMG_HZ
JOINT_HZ=$JOINT_HZ
DURATION=$DUR
ROBOT=$ROBOT
RESTART_CAM=$(cam_topic $RESTART_CAM)
NPROC=$(nproc)
EOF

# edged again, with no ROS publisher left: what the broker lost while
# restarting is still in its outbox, kept until the sink acknowledges
# each episode, and it answers the sink's repair requests from there.
start answering "$EDGED" run --config "$CFG"
echo "soak: waiting for the sink to drain (edged runs again to answer repair requests)"
last="" same=0
for _ in $(seq 300); do
  miss=$("$PY" soak/check.py missing "$WORK")
  [ "${miss%% *}" = 0 ] && break
  if [ "$miss" = "$last" ]; then same=$((same + 1)); else same=0; fi
  ((same >= 90)) && break # longer than resend_after plus a repair round
  last=$miss
  sleep 1
done
echo "soak: sink: missing $miss"
stop answering
stop sink
"$PY" soak/check.py report "$WORK"
