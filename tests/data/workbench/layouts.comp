#version 450
#extension GL_EXT_scalar_block_layout : require
// One block per standard layout, each with members whose offsets tell the layouts apart.
struct Light { vec3 position; float radius; vec2 size; };
layout(local_size_x = 1) in;
layout(std140, set = 0, binding = 0) uniform A { float weights[3]; vec3 tint; float gain; mat3 basis; Light light; } a;
layout(std430, set = 0, binding = 1) buffer B { float weights[3]; vec3 tint; float gain; mat3 basis; Light light; } b;
layout(scalar, set = 0, binding = 2) buffer C { float weights[3]; vec3 tint; float gain; vec2 uv; vec3 normal; Light light; } c;
layout(std430, set = 0, binding = 3) buffer D { vec4 all[2]; mat4 frame; } d;
void main() {
    b.gain = a.weights[1] + a.tint.x + a.gain + a.basis[1].y + a.light.radius;
    c.gain = b.weights[2] + b.tint.y + b.basis[2].z + b.light.size.x + d.all[1].w + d.frame[3].x;
    d.all[0] = vec4(c.weights[0], c.tint.z, c.uv.x + c.normal.y, c.light.position.x);
}
