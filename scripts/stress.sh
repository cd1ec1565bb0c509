#!/usr/bin/env bash
# make stress: edged against hostile peers and a bad disk, a few minutes in
# all; prints each figure beside its bound and PASS/FAIL per scenario, exits
# 1 if one failed. See stress/README.md for what runs and how it is checked.
#
# Starts (all on free ports on 127.0.0.1, all stopped on exit): rosmaster,
# mosquitto (persistence on), and per scenario a fresh `bin/edged run` with
# a generated config (and `edged sink` where the receiver is measured):
#   flood     one publisher, 63 MiB std_msgs/String + JointState, flat out
#             (over ros.max_state_message: refused and counted)
#   floodcap  the same with 1000 KiB messages, under the cap: the queues'
#             byte bounds hold and every drop is counted
#   stall     12 publishers that send a 64 MiB frame but its last byte
#   amplify   an array of an empty custom type, 60 MiB (edged run + echo)
#   pubupdate publisherUpdate with 50,000 fake publisher URIs
#   diskfull  the sink's --out on a tmpfs that fills up, then grows
#   sigkill   edged run SIGKILLed 10 times during FSM cycles
# Memory figures are edged's peak RSS (VmHWM, sampled every 0.1 s) against
# the documented bound ring.max_bytes x cameras + 256 MiB. A process that
# passes STRESS_RSS_CEILING_MIB (3072) is killed to protect the machine and
# its scenario fails.
#
# Env: STRESS_SCENARIOS (all six, in that order), STRESS_DIR (work
# directory; default a new one under /tmp, kept and printed),
# STRESS_RSS_CEILING_MIB, STRESS_FLOOD_KIB (64512), STRESS_FLOOD_SECONDS (20),
# STRESS_STALLED (12), STRESS_STALL_SECONDS (20), STRESS_AMP_SECONDS (12),
# STRESS_URIS (50000), STRESS_PU_SECONDS (20), STRESS_FULL_SECONDS (15),
# STRESS_KILLS (10).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=/usr/bin/python3
EDGED=$ROOT/bin/edged
SCENARIOS=${STRESS_SCENARIOS:-flood floodcap stall amplify pubupdate diskfull sigkill}
CEILING=${STRESS_RSS_CEILING_MIB:-3072}
FLOOD_KIB=${STRESS_FLOOD_KIB:-64512}
FLOOD_SECONDS=${STRESS_FLOOD_SECONDS:-20}
STALLED=${STRESS_STALLED:-12}
STALL_SECONDS=${STRESS_STALL_SECONDS:-20}
AMP_SECONDS=${STRESS_AMP_SECONDS:-12}
URIS=${STRESS_URIS:-50000}
PU_SECONDS=${STRESS_PU_SECONDS:-20}
FULL_SECONDS=${STRESS_FULL_SECONDS:-15}
KILLS=${STRESS_KILLS:-10}
ROBOT=stress-robot

die() { echo "stress: $*" >&2; exit 2; }
for bin in rosmaster mosquitto curl; do
  command -v "$bin" >/dev/null || die "$bin is not installed (run make deps)"
done
[ -x "$EDGED" ] || die "$EDGED is missing (run make build, or make stress)"

WORK=${STRESS_DIR:-$(mktemp -d /tmp/edged-stress.XXXXXX)}
mkdir -p "$WORK"/{logs,ros/log}
export ROS_HOME=$WORK/ros ROS_LOG_DIR=$WORK/ros/log ROS_IP=127.0.0.1
unset ROS_HOSTNAME

declare -A PIDS=()
MOUNTS=()
cleanup() { # every entry of PIDS is a live group of ours: stop() removes what it ended
  local p m
  for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() { # start NAME LOG CMD...: own process group, output appended to LOG
  local name=$1 log=$2; shift 2
  PIDS[$name]=$( (setsid "$@" >>"$log" 2>&1 </dev/null & echo $!) )
}
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
stop() { # stop NAME [SIGNAL] [SECONDS]: signal the group, wait for the leader
  local name=$1 sig=${2:-TERM} secs=${3:-10} pid=${PIDS[$1]:-}
  [ -n "$pid" ] || return 0
  kill "-$sig" -- "-$pid" 2>/dev/null || true
  poll "$secs" gone "$pid" || true
  kill -KILL -- "-$pid" 2>/dev/null || true
  poll 2 gone "$pid" || true
  unset "PIDS[$name]"
}
now() { date +%s.%N; }
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
poll() { # poll SECONDS CMD...: CMD every 0.1 s until it succeeds (0) or time is up (1)
  # By the clock, not by a count of tries: on a loaded machine each try
  # (a process or two) can take longer than the sleep.
  local end=$(($(date +%s%N) + $1 * 1000000000)); shift
  while (($(date +%s%N) < end)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  "$@" >/dev/null 2>&1
}
wait_for() { # wait_for SECONDS DESCRIPTION CMD...
  local secs=$1 what=$2; shift 2
  poll "$secs" "$@" || die "$what did not come up within ${secs}s (logs: $WORK)"
}
say() { echo "stress: $*"; }

MPORT=$(free_port) QPORT=$(free_port)
export ROS_MASTER_URI=http://127.0.0.1:$MPORT
master_up() { $PY -c "import xmlrpc.client as x; x.ServerProxy('$ROS_MASTER_URI').getPid('/stress')"; }
broker_up() { $PY -c "import socket; socket.create_connection(('127.0.0.1', $QPORT), 1)"; }
mkdir -p "$WORK/mosquitto"
# As root mosquitto would drop to the mosquitto user, which cannot write
# the persistence directory (soak/README.md).
cat >"$WORK/mosquitto.conf" <<EOF
user $(id -un)
listener $QPORT 127.0.0.1
allow_anonymous true
persistence true
persistence_location $WORK/mosquitto/
log_dest stderr
max_queued_messages 100000
max_queued_bytes 0
EOF
say "work directory $WORK; rosmaster :$MPORT, mosquitto :$QPORT"
start master "$WORK/logs/master.log" rosmaster --core -p "$MPORT" -w 4
start broker "$WORK/logs/broker.log" mosquitto -c "$WORK/mosquitto.conf"
wait_for 20 rosmaster master_up
wait_for 20 mosquitto broker_up

# --- one edged run per scenario -------------------------------------------

D="" HPORT="" EDGED_PID=""
scenario() { # scenario DIR: the scenario's directory and port
  D=$WORK/$1 HPORT=$(free_port)
  rm -rf "$D"; mkdir -p "$D/logs"
  echo "CAMERAS=1" >"$D/run.env"
  say "== $1"
}
env_set() { echo "$1=$2" >>"$D/run.env"; }
config() { # config CAMERA JOINT FSM_LINES BROKER: D/edged.yaml and D/effective.yaml
  {
    echo "robot_id: $ROBOT"
    echo "data_dir: $D/data"
    echo "ros: {master_uri: \"$ROS_MASTER_URI\"}"
    echo "cameras: [{topic: $1}]"
    [ -n "$2" ] && echo "joints: [{topic: $2}]"
    echo "fsm:"
    echo "$3"
    [ -n "$4" ] && echo "uplink: {broker: \"$4\"}"
    echo "http: {listen: \"127.0.0.1:$HPORT\"}"
  } >"$D/edged.yaml"
  "$EDGED" config check "$D/edged.yaml" >"$D/effective.yaml"
}
running_lines() { cat "$D/logs/edged.log" 2>/dev/null | grep -c "daemon: running" || true; }
edged_start() { # a fresh edged run on D/edged.yaml, watched (RSS, CPU, safety ceiling)
  local before
  before=$(running_lines)
  setsid "$EDGED" run --config "$D/edged.yaml" >>"$D/logs/edged.log" 2>&1 </dev/null &
  EDGED_PID=$!
  PIDS[edged]=$EDGED_PID
  poll 30 eval '[ "$(running_lines)" -gt "$before" ]' || die "edged run did not start (log: $D/logs/edged.log)"
  start "watch$EDGED_PID" "$D/logs/watch.log" "$PY" stress/check.py watch "$EDGED_PID" "$D/samples.tsv" "$CEILING"
}
metrics_final() { curl -sf -m 10 -o "$D/metrics-final.txt" "http://127.0.0.1:$HPORT/metrics" || true; }
edged_stop() { # SIGTERM edged (if it still runs) and record how it ended in run.env
  local code=running
  if gone "$EDGED_PID"; then
    set +e; wait "$EDGED_PID"; code=$?; set -e
    [ -f "$D/samples.tsv.killed" ] && code="killed at the ${CEILING} MiB safety ceiling"
    say "edged had exited ($code)"
  else
    # Scenarios measure memory and delivery, not the shutdown: 10 s, then
    # SIGKILL (recorded).
    local t
    t=$(date +%s)
    kill -TERM "$EDGED_PID" 2>/dev/null || true
    if poll 10 gone "$EDGED_PID"; then
      set +e; wait "$EDGED_PID"; env_set STOP "exited $? after $(($(date +%s) - t)) s"; set -e
    else
      kill -KILL "$EDGED_PID" 2>/dev/null || true
      wait "$EDGED_PID" 2>/dev/null || true
      env_set STOP "still running 10 s after SIGTERM: killed"
    fi
  fi
  unset "PIDS[edged]"
  stop "watch$EDGED_PID" # it ends with edged; waited for so that no stale group id is left to signal
  env_set EXIT "$code"
}
peer_wait() { # peer_wait NAME SECONDS: until the peer exits (or edged died)
  local pid=${PIDS[$1]}
  poll "$2" eval 'gone "$pid" || gone "$EDGED_PID"' || true
  gone "$EDGED_PID" && say "edged died during the scenario"
  stop "$1"
}
check() { "$PY" stress/check.py "$1" "$D" || true; }

s_flood() { flood_run 1-flood /s1 "$FLOOD_KIB"; }
s_floodcap() { flood_run 1b-floodcap /s1b 1000; }

# flood_run NAME NAMESPACE KIB: one publisher floods an FSM and a joint
# topic with KIB-KiB messages.
flood_run() {
  scenario "$1"
  local fsm=$2/task_state joint=$2/joint_states kib=$3
  export STRESS_FLOOD_KIB=$kib
  config "$2/cam/image_raw/compressed" "$joint" "  - {topic: $fsm, type: string, idle_states: [IDLE]}" ""
  env_set FSM_TOPIC $fsm; env_set JOINT_TOPIC $joint; env_set FLOOD_KIB "$kib"; env_set SECONDS "$FLOOD_SECONDS"
  edged_start
  start peer "$D/logs/peer.log" "$PY" stress/peer.py flood "$ROS_MASTER_URI" $fsm $joint "$FLOOD_SECONDS" "$D/stats.json"
  peer_wait peer $((FLOOD_SECONDS + 30))
  gone "$EDGED_PID" || poll 30 "$PY" stress/check.py balanced "$D" "http://127.0.0.1:$HPORT/metrics" ||
    say "edged's queues had not drained 30 s after the flood"
  metrics_final
  edged_stop
  check flood
}

s_stall() {
  scenario 2-stall
  local cam=/s2/cam/image_raw/compressed
  config $cam "" "  - {topic: /s2/task_state, type: string, idle_states: [IDLE]}" ""
  env_set CAM_TOPIC $cam; env_set N "$STALLED"; env_set SECONDS "$STALL_SECONDS"
  edged_start
  start peer "$D/logs/peer.log" "$PY" stress/peer.py stall "$ROS_MASTER_URI" $cam "$STALLED" "$STALL_SECONDS" "$D/stats.json"
  peer_wait peer $((STALL_SECONDS + 30))
  metrics_final
  edged_stop
  check stall
}

s_amplify() {
  scenario 3-amplify
  local amp=/s3/amp
  config /s3/cam/image_raw/compressed "" "  - {topic: $amp, type: field, field: items}" ""
  env_set AMP_TOPIC $amp; env_set SECONDS "$AMP_SECONDS"
  edged_start
  # edged echo decodes with the same dynamic decoder, from the definition.
  setsid "$EDGED" echo $amp --count 1 >"$D/logs/echo.log" 2>&1 </dev/null &
  local echo_pid=$! echo_code=running
  PIDS[echo]=$echo_pid
  start "watch$echo_pid" "$D/logs/watch-echo.log" "$PY" stress/check.py watch "$echo_pid" "$D/samples-echo.tsv" "$CEILING"
  start peer "$D/logs/peer.log" "$PY" stress/peer.py amplify "$ROS_MASTER_URI" $amp "$AMP_SECONDS" "$D/stats.json"
  peer_wait peer $((AMP_SECONDS + 30))
  metrics_final
  edged_stop
  if gone "$echo_pid"; then
    set +e; wait "$echo_pid"; echo_code="exit $?"; set -e
    [ -f "$D/samples-echo.tsv.killed" ] && echo_code="killed at the ${CEILING} MiB safety ceiling"
  else
    echo_code="still running after the peer stopped (nothing printed, no error)"
  fi
  stop echo
  wait "$echo_pid" 2>/dev/null || true # reaped quietly (no "Killed" notice)
  stop "watch$echo_pid"
  env_set ECHO_EXIT "$echo_code: $(tail -c 300 "$D/logs/echo.log" | tr '\n' ' ')"
  check amplify
}

s_pubupdate() {
  scenario 3b-pubupdate
  local fsm=/s3b/task_state
  config /s3b/cam/image_raw/compressed "" "  - {topic: $fsm, type: string, idle_states: [IDLE]}" ""
  env_set URIS "$URIS"; env_set SECONDS "$PU_SECONDS"
  edged_start
  local t0
  t0=$(now)
  env_set T_CALL "$t0"
  timeout 60 "$PY" stress/peer.py pubupdate "$ROS_MASTER_URI" /edged $fsm "$URIS" >"$D/pubupdate.json" 2>"$D/logs/peer.log" || true
  # The measurement window (not a synchronization): RSS and CPU while
  # edged deals with the fake publishers.
  local end
  end=$($PY -c "print($t0 + $PU_SECONDS)")
  while ! gone "$EDGED_PID" && $PY -c "import time, sys; sys.exit(time.time() >= $end)"; do sleep 0.5; done
  metrics_final
  edged_stop
  check pubupdate
}

segments_at_sink() { compgen -G "$1/$ROBOT/*/segments/segment-*.json" >/dev/null; }
drain() { # drain SINK_OUT: until the sink has all of edged's store, or nothing arrived for 10 s (40 s at most)
  local last="" same=0 miss="" end=$(($(date +%s) + 40))
  while (($(date +%s) < end)); do
    miss=$("$PY" soak/check.py missing "$D")
    [ "${miss%% *}" = 0 ] && break
    if [ "$miss" = "$last" ]; then same=$((same + 1)); else same=0; fi
    ((same >= 10)) && break
    last=$miss
    sleep 1
  done
  say "sink: missing $miss"
}
outbox_empty() { # edged has nothing left to send (the broker acknowledged all)
  curl -sf -m 5 "http://127.0.0.1:$HPORT/metrics" | grep -qE '^edged_outbox_pending_messages 0$'
}
robot_stop() { # the robot's last episode closed and shipped, then edged stopped
  stop peer TERM 10 # the peer publishes IDLE for 2 s, closing the episode
  poll 30 outbox_empty || say "edged's outbox not empty 30 s after the robot stopped"
  metrics_final
  edged_stop
}
robot_config() { # a robot with an FSM and joints that ships to the broker
  config "/$1/cam/image_raw/compressed" "/$1/joint_states" \
    "  - {topic: /$1/task_state, type: string, idle_states: [IDLE]}" "tcp://127.0.0.1:$QPORT"
  env_set ROBOT $ROBOT
}

s_diskfull() {
  scenario 4-diskfull
  env_set FULL_SECONDS "$FULL_SECONDS"
  local fs=$D/fs size0=2m size1=64m t0
  mkdir -p "$fs"
  if ! mount -t tmpfs -o size=$size0 tmpfs "$fs" 2>"$D/logs/mount.log"; then
    env_set SKIPPED "mount -t tmpfs failed: $(tr '\n' ' ' <"$D/logs/mount.log")"
    say "SKIPPING: cannot mount a tmpfs ($(cat "$D/logs/mount.log"))"
    check diskfull
    return
  fi
  MOUNTS+=("$fs")
  ln -s "$fs/out" "$D/sink"
  env_set SIZE0 $size0; env_set SIZE1 $size1
  robot_config s4
  start sink "$D/logs/sink.log" "$EDGED" sink --broker "tcp://127.0.0.1:$QPORT" --out "$fs/out" --group stress4
  edged_start
  t0=$(date +%s)
  start peer "$D/logs/peer.log" "$PY" stress/peer.py fsm "$ROS_MASTER_URI" /s4/task_state /s4/joint_states 3600
  poll 30 segments_at_sink "$fs/out" || say "no segment reached the sink within 30 s"
  dd if=/dev/zero of="$fs/filler" bs=64k 2>/dev/null || true # until ENOSPC
  env_set T_FULL $(($(date +%s) - t0))
  say "sink filesystem full: $(df -h "$fs" | tail -1)"
  sleep "$FULL_SECONDS" # the robot records and ships while the sink cannot write
  mount -o remount,size=$size1 "$fs"
  env_set T_GROW $(($(date +%s) - t0))
  say "sink filesystem grown: $(df -h "$fs" | tail -1)"
  sleep 8 # running again with room: a couple of FSM cycles
  robot_stop
  drain
  env_set SINK_ERRORS "$(grep -ciE 'no space|enospc|error' "$D/logs/sink.log" || true) log lines"
  stop sink
  check diskfull
  rm "$D/sink" && cp -a "$fs/out" "$D/sink" # kept after the tmpfs goes
}

s_sigkill() {
  scenario 5-sigkill
  env_set KILLS "$KILLS"
  robot_config s5
  start sink "$D/logs/sink.log" "$EDGED" sink --broker "tcp://127.0.0.1:$QPORT" --out "$D/sink" --group stress5
  edged_start
  local t0 times="" i
  t0=$(date +%s)
  start peer "$D/logs/peer.log" "$PY" stress/peer.py fsm "$ROS_MASTER_URI" /s5/task_state /s5/joint_states 3600
  exec 3>&2 2>>"$D/logs/harness.log" # no "Killed" job notices on the terminal
  for ((i = 0; i < KILLS; i++)); do
    sleep "$((1 + RANDOM % 3)).$((RANDOM % 10))" # a random moment of the 4 s FSM cycle
    kill -KILL "$EDGED_PID" 2>/dev/null || true
    poll 10 gone "$EDGED_PID" || die "edged survived SIGKILL"
    set +e; wait "$EDGED_PID"; set -e
    unset "PIDS[edged]"
    stop "watch$EDGED_PID"
    times="$times $(($(date +%s) - t0))"
    edged_start
  done
  exec 2>&3 3>&-
  env_set KILL_TIMES "${times# }"
  sleep 6 # a full FSM cycle after the last restart
  robot_stop
  drain
  stop sink
  check sigkill
}

T0=$(date +%s)
for s in $SCENARIOS; do
  case $s in
  flood | floodcap | stall | amplify | pubupdate | diskfull | sigkill) "s_$s" ;;
  *) die "unknown scenario $s (flood floodcap stall amplify pubupdate diskfull sigkill)" ;;
  esac
done
say "done in $(($(date +%s) - T0)) s"
"$PY" stress/check.py summary "$WORK"
