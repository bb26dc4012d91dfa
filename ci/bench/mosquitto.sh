# Shared by ci/bench-harness.sh and ci/bench-pairs.sh (sourced; they set `dir` and `pids`): a
# mosquitto on a free loopback port, the broker's own count of messages received, and the
# mosquitto_pub input.

# Starts mosquitto with the listener, anonymous access, no persistence, $SYS every second and any
# further configuration lines in $1; sets `port` and adds the broker to `pids`.
start_mosquitto() {
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nsys_interval 1\n%s' "$port" "${1:-}" >"$dir/mosquitto.conf"
  mosquitto -c "$dir/mosquitto.conf" >"$dir/mosquitto.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
}

# What the broker counted as received ($SYS, refreshed every second: read after 2.5 s), so that a
# client that drops messages cannot look fast.
received() { sleep 2.5; mosquitto_sub -h 127.0.0.1 -p "$port" -t '$SYS/broker/publish/messages/received' -C 1 -W 10; }

# Writes $1 heart-rate readings, one JSON line each, to $dir/lines, then splits them into
# $dir/chunk.* of 30,000 lines: mosquitto_pub -l queues every line it reads without bound, and with
# QoS 1 its 16-bit message ids wrap once 65,535 are unacknowledged, the broker drops the connection
# ("out of memory") and mosquitto_pub still exits 0; 30,000 lines per process it delivers completely.
mosquitto_lines() {
  python3 -c "
for i in range($1):
    print('{\"readingId\":\"m/%d\",\"patientId\":\"m\",\"deviceId\":\"hr\",\"kind\":\"heart-rate\",\"value\":%d,\"unit\":\"/min\",\"timestamp\":\"2024-01-01T00:00:00Z\"}' % (i, 60 + i % 30))
" >"$dir/lines"
  split -l 30000 -d -a 4 "$dir/lines" "$dir/chunk."
}

# Seconds a mosquitto_pub process takes with no input (it waits for CONNACK in 100 ms sleeps), the
# mean of $1 runs: subtracted from each run's time.
pub_startup() {
  local s e
  s=$(date +%s.%N)
  for _ in $(seq "$1"); do mosquitto_pub -h 127.0.0.1 -p "$port" -V mqttv5 -q 1 -t vitals/m/heart-rate -l </dev/null; done
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" -v n="$1" 'BEGIN {printf "%.4f", (e - s) / n}'
}
