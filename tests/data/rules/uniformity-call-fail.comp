#version 450
// Calls, from divergent control flow, of functions that hold a barrier.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; } data;
shared uint tile[64];

void sync() {
    barrier();
}

void syncIf(uint n) {
    if (n > 8) {
        barrier();
    }
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = data.v[lid];
    if (lid < 32) {
        sync(); // FAIL: the barrier inside runs for half the workgroup
    }
    syncIf(lid); // FAIL: the branch inside is on the invocation id passed in
    data.v[lid] = tile[63 - lid];
}
