#version 450
// Each marked barrier is reached in control flow that is not uniform across the workgroup.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; } data;
shared uint tile[64];

void main() {
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = data.v[lid];
    if (lid < 16) {
        barrier(); // FAIL: a branch on the invocation id
    }
    uint n = 0;
    while (n < lid) {
        n += 4;
        barrier(); // FAIL: inside a loop whose trip count is per invocation
    }
    if (data.v[0] > 3) {
        barrier(); // FAIL: a writable storage buffer may differ per invocation
    }
    if (lid == 0) {
        return;
    }
    barrier(); // FAIL: after an early return some invocations took
    data.v[lid] = tile[(lid + 1) % 64] + n;
}
