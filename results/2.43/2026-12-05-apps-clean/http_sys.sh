#!/bin/bash
# syscalls per request of http.server under a variant, ab -c 1 -n 2000
v=$1; R=/work/clean/build/2.43/$v/bin/run
mkdir -p /tmp/www; head -c 4096 /dev/zero > /tmp/www/f
port=$((20000 + RANDOM % 1000))
$R /usr/bin/python3 -c 'import sys,http.server,functools
h=functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
class S(http.server.ThreadingHTTPServer): request_queue_size=256
h2=type("H",(http.server.SimpleHTTPRequestHandler,),{"log_message":lambda *a:None})
S(("127.0.0.1",int(sys.argv[2])), functools.partial(h2, directory=sys.argv[1])).serve_forever()' /tmp/www $port >/dev/null 2>&1 &
pid=$!
sleep 1.5; ab -q -n 200 http://127.0.0.1:$port/f >/dev/null 2>&1
perf stat -x, -p $pid -e raw_syscalls:sys_enter,syscalls:sys_enter_mmap,syscalls:sys_enter_munmap,syscalls:sys_enter_mprotect,syscalls:sys_enter_madvise,syscalls:sys_enter_futex,syscalls:sys_enter_clone3,task-clock -o /tmp/perf-$v.txt -- ab -q -n 2000 -c 1 http://127.0.0.1:$port/f 2>&1 | grep -E "Requests per second"
kill $pid; wait $pid 2>/dev/null
awk -F, -v v=$v '{printf "%s %s %.2f/req\n", v, $3, $1/2000}' /tmp/perf-$v.txt | grep -v '^.* $'
