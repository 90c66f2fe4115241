#version 450
// Barriers in control flow uniform across the workgroup: branches on uniform buffers, push
// constants, workgroup ids; a barrier after the merge of a divergent loop.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Input { uint v[]; } inp;
layout(set = 0, binding = 1) buffer Output { uint v[]; } outp;
layout(set = 0, binding = 2) uniform Params { uint count; uint mode; } params;
layout(push_constant) uniform Push { uint passes; } pc;
shared uint tile[64];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint sum = 0;
    for (uint i = lid; i < params.count; i += 64) {
        sum += inp.v[i];
    }
    tile[lid] = sum;
    barrier(); // after the divergent loop's merge: all invocations are back
    for (uint p = 0; p < pc.passes; ++p) {
        if (params.mode == 1) {
            barrier();
        }
        if (lid < 32) {
            tile[lid] += tile[lid + 32];
        }
        barrier();
    }
    if (gl_WorkGroupID.x == 0) {
        barrier(); // uniform across the workgroup
    }
    if (inp.v[0] > 3) {
        barrier(); // a read-only buffer
    }
    outp.v[gl_GlobalInvocationID.x] = tile[lid];
}
