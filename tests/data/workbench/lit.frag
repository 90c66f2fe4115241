#version 450
layout(set = 0, binding = 0) uniform Camera { mat4 view_proj; vec3 eye; float exposure; vec4 lights[2]; } camera;
layout(set = 0, binding = 1, std430) readonly buffer Materials { vec4 albedo[]; } materials;
layout(set = 1, binding = 0) uniform sampler2D albedo_map;
layout(push_constant) uniform Push { mat4 model; uint material; } push;
layout(location = 0) in vec2 uv;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec4 color;
void main() {
    vec4 base = texture(albedo_map, uv) * materials.albedo[push.material];
    color = vec4(base.rgb * max(dot(normalize(normal), normalize(camera.eye)), 0.0) * camera.exposure + camera.lights[1].rgb, base.a);
}
