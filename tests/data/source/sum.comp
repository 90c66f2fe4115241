#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Data {
    float values[];
};

#include "common.glsl"

float square(float x)
{
    return x * x;
}

void main()
{
    uint id = gl_GlobalInvocationID.x;
    float acc = 0.0;
    for (uint i = 0u; i < 16u; i++) {
        acc += square(values[id + i]) * weight(i);
    }
    values[id] = acc;
}
