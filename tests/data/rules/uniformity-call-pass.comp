#version 450
// Calls of functions that hold a barrier, made in uniform control flow with uniform arguments.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; } data;
layout(set = 0, binding = 1) uniform Params { uint rounds; } params;
shared uint tile[64];

void sync() {
    barrier();
}

void syncIf(uint n) {
    if (n > 8) {
        barrier();
    }
}

uint lane() {
    return gl_LocalInvocationID.x;
}

void main() {
    uint lid = lane();
    tile[lid] = data.v[lid];
    sync();
    syncIf(params.rounds);
    syncIf(gl_WorkGroupID.x);
    data.v[lid] = tile[63 - lid];
}
