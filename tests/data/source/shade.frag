#version 450
#extension GL_GOOGLE_cpp_style_line_directive : require

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

vec3 tint(vec3 c)
{
    return c * vec3(0.9, 0.8, 0.7);
}

void main()
{
    vec3 c = vec3(uv, 0.0);
    for (int i = 0; i < 3; i++) {
        c = tint(c);
    }
#line 100 "generated.glsl"
    color = vec4(c, 1.0);
}
