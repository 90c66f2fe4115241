#version 450
// A horizontal box blur: each invocation averages RADIUS texels either side of its own.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Params { ivec2 size; float gain; } params;

#ifndef RADIUS
#define RADIUS 2
#endif

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, params.size))) return;
    vec4 sum = vec4(0.0);
    for (int i = -RADIUS; i <= RADIUS; ++i)
        sum += texelFetch(src, clamp(p + ivec2(i, 0), ivec2(0), params.size - 1), 0);
    imageStore(dst, p, params.gain * sum / float(2 * RADIUS + 1));
}
