"""Simplified Chinese (zh_HANS) for every label, tooltip and message of the add-on (the source is Chinese).

Each entry is registered in the default context ``"*"``, in ``"Operator"`` (operator buttons, including
their ``text=`` overrides in the panels, look their label up in the operator context) and in the add-on's own
:data:`CONTEXT`: Blender's own translations win over an add-on's for the same English word in the default
context ("Error" showed as 错误, "Softness" as 柔和), so the properties whose names Blender also translates
declare ``translation_context=CONTEXT``. Message templates keep
their ``{placeholders}``; callers translate first and format afterwards.
"""

from __future__ import annotations

import bpy

CONTEXT = "soft_ik_2d"
CONTEXTS = ("*", "Operator", CONTEXT)

ZH: dict[str, str] = {
    # chain_checks.py / verification.py
    "{label}: bone '{bone}' has the {type} constraint '{constraint}' acting on it (influence {influence}), which "
    "the solve cannot follow; mute it, set its influence to 0 or remove it":
        "{label}：骨骼 '{bone}' 上有正在生效的 {type} 约束 '{constraint}'（影响 {influence}），求解无法预知它的作用；"
        "请将其静音、把影响设为 0 或删除它",
    "{label}: bone '{bone}' is moved by the {type} constraint '{constraint}' of bone '{owner}'; mute it, set its "
    "influence to 0 or shorten its chain so it stops above '{bone}'":
        "{label}：骨骼 '{bone}' 被骨骼 '{owner}' 的 {type} 约束 '{constraint}' 移动；请将其静音、把影响设为 0，"
        "或缩短其链长使其止于 '{bone}' 之上",
    "{label}: the driver on {path} moves bone '{bone}' of the chain; remove the driver or mute it (Drivers "
    "editor)":
        "{label}：{path} 上的驱动器会移动链中的骨骼 '{bone}'；请删除或静音该驱动器（驱动器编辑器）",
    "{label}: bone '{bone}' has a pose scale ({value}, {where}); the chain's bones must stay unscaled: set its "
    "scale to 1 and delete its scale keys (the Stretch strategy scales the arm for you)":
        "{label}：骨骼 '{bone}' 有姿态缩放（{value}，{where}）；链中骨骼必须保持未缩放：请将缩放设为 1 并删除其缩放"
        "关键帧（拉伸策略会替你缩放手臂）",
    "{label}: bone '{bone}' is not connected to its parent and has a pose location ({value}, {where}), which "
    "would move the joint the solve places; set it to 0 and delete its location keys, or connect the bone":
        "{label}：骨骼 '{bone}' 未与父级相连且有姿态位置（{value}，{where}），会移动求解所放置的关节；请将其设为 0 "
        "并删除其位置关键帧，或将骨骼相连",
    "{label}: the Move Root strategy keys the location of upper bone '{bone}', but it is connected to its parent "
    "'{parent}' and Blender ignores its location; disconnect it (Bone Properties > Relations) or pick another "
    "strategy":
        "{label}：移动根部策略会为上段骨骼 '{bone}' 的位置打关键帧，但它与父级 '{parent}' 相连，Blender 会忽略其位置；"
        "请断开连接（骨骼属性 > 关系）或选择其他策略",
    "key at frame {frame}": "第 {frame} 帧的关键帧",
    "current value": "当前值",
    "{label}: upper bone '{bone}' does not inherit scale (Inherit Scale {mode}) but its parent '{parent}' is "
    "scaled {scale} at frame {frame}; set Inherit Scale to Full or remove the scale of '{parent}'":
        "{label}：上段骨骼 '{bone}' 不继承缩放（继承缩放 {mode}），但其父级 '{parent}' 在第 {frame} 帧缩放为 "
        "{scale}；请将继承缩放设为完全，或去掉 '{parent}' 的缩放",
    "{label}: parent bone '{parent}' is scaled unevenly {scale} at frame {frame} and bone '{bone}' inherits it "
    "as {mode}; set Inherit Scale of '{bone}' to Full, or scale '{parent}' evenly":
        "{label}：父骨骼 '{parent}' 在第 {frame} 帧非均匀缩放为 {scale}，而骨骼 '{bone}' 以 {mode} 方式继承；请将 "
        "'{bone}' 的继承缩放设为完全，或均匀缩放 '{parent}'",
    "{label}: Blender plays the tip back up to {size:.6g} ({fraction:.3%} of the chain length) away from the "
    "solved pose on {count} frame(s): {frames}; the error curve shows the measured distance. Something the "
    "add-on does not model moves the chain (a constraint, driver, NLA strip or curve modifier on the armature "
    "or its parents)":
        "{label}：Blender 回放时末端与求解姿态相差最多 {size:.6g}（链长的 {fraction:.3%}），共 {count} 帧：{frames}；"
        "误差曲线显示的是实测距离。有插件未建模的因素在移动这条链"
        "（骨架或其父级上的约束、驱动器、NLA 片段或曲线修改器）",
    # Properties (properties.py)
    "Frame": "帧",
    "Frame of the last bake with a large error": "上次烘焙中误差较大的帧",
    "Error": "误差",
    "Distance from the tip to the raw target at this frame": "该帧末端到原始目标的距离",
    "Upper Bone": "上段骨骼",
    "Root bone of the chain (upper arm, thigh)": "链的根骨骼（上臂、大腿）",
    "Lower Bone": "下段骨骼",
    "Tip bone of the chain (forearm, shin); its tail reaches for the target":
        "链的末端骨骼（前臂、小腿）；它的尾端伸向目标",
    "Chain Length": "链长度",
    "Number of bones from the lower bone up its parents (2 for an arm or leg)":
        "从下段骨骼向上数的骨骼数量（手臂或腿为 2）",
    "Solver": "求解器",
    "How the chain is solved": "链的求解方式",
    "Analytic": "解析解",
    "Law-of-cosines two-bone solve (exact, two bones only)": "基于余弦定理的两段骨骼解析解（精确，仅限两段）",
    "CCD": "CCD",
    "Cyclic coordinate descent for chains of 3 to 32 bones": "循环坐标下降法，用于 3 到 32 段骨骼的链",
    "FABRIK": "FABRIK",
    "Forward and backward reaching IK for chains of 3 to 32 bones": "前后向到达 IK，用于 3 到 32 段骨骼的链",
    "Target": "目标",
    "Object the tip reaches for (usually an Empty)": "末端要够到的物体（通常是一个空物体）",
    "Target Space": "目标空间",
    "Space the target lives in; must match how it is parented": "目标所在的空间；必须与它的父级关系一致",
    "World": "世界",
    "The target stays put in the world (a foot planted on the ground)": "目标固定在世界中（踩在地面上的脚）",
    "Character": "角色",
    "The target moves with the character: the armature or one of its bones (a hand on the hip)":
        "目标随角色移动：随骨架或它的某根骨骼（叉在腰上的手）",
    "Object": "物体",
    "The target moves with another object or one of its bones (a hand on a moving door)":
        "目标随另一个物体或它的某根骨骼移动（扶着移动的门的手）",
    "Space Object": "空间物体",
    "Object whose space an OBJECT target lives in": "“物体”空间的目标所在的物体",
    "Space Bone": "空间骨骼",
    "Optional bone of the space object (or of the armature, for CHARACTER) the target is parented to":
        "目标所绑定的空间物体（“角色”空间时为骨架）的骨骼，可选",
    "Bend": "弯曲方向",
    "Which mirrored solution: +1 bends the elbow counter-clockwise in the rig's plane, -1 clockwise. Never flips "
    "by itself": "选择哪一个镜像解：+1 在绑定平面内逆时针弯曲肘部，-1 顺时针。不会自行翻转",
    "Pole": "极向目标",
    "Optional object whose side of the shoulder-target line the elbow points to (kept when it lies on the line)":
        "可选物体：肘部指向它所在的肩-目标连线一侧（它落在连线上时保持原侧）",
    "Softness": "软化",
    "Soft IK band as a fraction of the chain length: the arm approaches full extension smoothly and never locks. "
    "0 = hard clamp": "软 IK 区间占链长的比例：手臂平滑地接近完全伸直，永不锁死。0 = 硬截断",
    "Inner Softness": "内侧软化",
    "The same softening at the fully folded boundary, as a fraction of the chain length":
        "在完全折叠边界处的同样软化，占链长的比例",
    "Limit Upper": "限制上段",
    "Limit the upper bone's angle": "限制上段骨骼的角度",
    "Upper Min": "上段最小值",
    "Lowest upper-bone angle, from its rest direction": "上段骨骼的最小角度，相对于其静止方向",
    "Upper Max": "上段最大值",
    "Highest upper-bone angle, from its rest direction": "上段骨骼的最大角度，相对于其静止方向",
    "Limit Lower": "限制下段",
    "Limit the lower bone's angle relative to the upper bone": "限制下段骨骼相对于上段骨骼的角度",
    "Lower Min": "下段最小值",
    "Lowest lower-bone angle relative to the upper bone (0 = straight)": "下段骨骼相对于上段骨骼的最小角度（0 = 伸直）",
    "Lower Max": "下段最大值",
    "Highest lower-bone angle relative to the upper bone": "下段骨骼相对于上段骨骼的最大角度",
    "When Limited": "受限时",
    "What happens when a joint limit keeps the hand from the target": "关节限制使手够不到目标时的处理方式",
    "Accept Error": "接受误差",
    "Keep the joint limits and leave the hand short of the target; the error is keyed so it can be seen":
        "保持关节限制，手停在目标之前；误差会写入关键帧以便查看",
    "Move Root": "移动根节点",
    "Offset the upper bone toward the target (location keys), at most Max Root Offset, smoothed over frames":
        "把上段骨骼向目标偏移（位置关键帧），最多为最大根偏移，并在帧间平滑",
    "Stretch": "拉伸",
    "Scale the chain uniformly within the stretch range (scale keys on the upper bone) so the hand reaches":
        "在拉伸范围内均匀缩放整条链（上段骨骼的缩放关键帧），让手够到目标",
    "Max Root Offset": "最大根偏移",
    "Largest distance Move Root may shift the upper bone": "“移动根节点”可以移动上段骨骼的最大距离",
    "Root Smoothing": "根节点平滑",
    "Width in frames of the filter that keeps Move Root from shaking the body (0 = none)":
        "防止“移动根节点”让身体抖动的滤波器宽度，单位为帧（0 = 不平滑）",
    "Stretch Min": "最小拉伸",
    "Smallest scale Stretch may use": "“拉伸”可以使用的最小缩放",
    "Stretch Max": "最大拉伸",
    "Largest scale Stretch may use": "“拉伸”可以使用的最大缩放",
    "Target Smoothing": "目标平滑",
    "Filter the target path before the solve, where noise is not yet amplified":
        "在求解之前过滤目标轨迹，此时噪声尚未被放大",
    "None": "无",
    "Use the target positions as they are": "按原样使用目标位置",
    "Exponential": "指数",
    "Exponential moving average of the target positions (adds lag)": "目标位置的指数移动平均（会带来滞后）",
    "One Euro": "One Euro",
    "Adaptive low-pass filter: smooths jitter when slow, follows fast motion":
        "自适应低通滤波：慢速时平滑抖动，快速时跟随运动",
    "Cutoff": "截止频率",
    "Smoothing cutoff frequency in Hz (lower = smoother)": "平滑的截止频率，单位 Hz（越低越平滑）",
    "Speed Coefficient": "速度系数",
    "One Euro: how much fast motion raises the cutoff (less lag)": "One Euro：快速运动使截止频率升高的程度（减少滞后）",
    "Baked From": "烘焙起始帧",
    "Baked To": "烘焙结束帧",
    "Max Error": "最大误差",
    "Mean Error": "平均误差",
    "Limited Frames": "受限帧数",
    "Frames of the last bake where a joint limit acted": "上次烘焙中关节限制起作用的帧数",
    "Baked Channels": "已烘焙通道",
    "Active Chain": "活动链",
    "Plane": "平面",
    "The 2D plane the rig is drawn in; bones rotate about its normal": "绑定所在的二维平面；骨骼绕其法线旋转",
    "XZ (Front)": "XZ（前视图）",
    "Rig drawn in the front view: rotations about the -Y axis": "绑定画在前视图中：绕 -Y 轴旋转",
    "XY (Top)": "XY（顶视图）",
    "Rig drawn in the top view: rotations about the +Z axis": "绑定画在顶视图中：绕 +Z 轴旋转",
    "YZ (Side)": "YZ（侧视图）",
    "Rig drawn in the right view: rotations about the +X axis": "绑定画在右视图中：绕 +X 轴旋转",
    "Live Preview": "实时预览",
    "Re-pose the chains whenever a target or setting changes, without inserting keys":
        "目标或设置一变化就重新摆放链的姿态，不插入关键帧",
    "Overlay": "叠加层",
    "Draw reach rings, soft band, targets and error of the active chain in the viewport":
        "在视图中绘制活动链的可达圆环、软化区间、目标和误差",
    # Operators (operators/)
    "Add Soft IK Chain": "添加软 IK 链",
    "Add a Soft IK chain ending at the active bone; the selected object (or a new Empty) is its target":
        "添加一条以活动骨骼结尾的软 IK 链；选中的物体（或新建的空物体）作为它的目标",
    "Number of bones from the active bone up its parents (2 for an arm or a leg)":
        "从活动骨骼向上数的骨骼数量（手臂或腿为 2）",
    "Space the target lives in": "目标所在的空间",
    "Name": "名称",
    "Name of the chain (default: the active bone's name)": "链的名称（默认：活动骨骼的名称）",
    "Remove Soft IK Chain": "移除软 IK 链",
    "Remove the active Soft IK chain (its target object and baked keys stay)":
        "移除活动的软 IK 链（它的目标物体和已烘焙的关键帧保留）",
    "Solve Soft IK": "求解软 IK",
    "Pose every Soft IK chain of the selected armatures at the current frame": "在当前帧摆放所选骨架的每条软 IK 链",
    "Insert Keys": "插入关键帧",
    "Also key the solved pose at the current frame": "同时在当前帧为求解出的姿态插入关键帧",
    "Bake Soft IK": "烘焙软 IK",
    "Bake the Soft IK chains of the selected armatures to keys over a frame range":
        "在一个帧范围内把所选骨架的软 IK 链烘焙为关键帧",
    "Start Frame": "起始帧",
    "First frame to bake (default: the scene's, or the preview range when it is on)":
        "烘焙的第一帧（默认：场景的起始帧，开启预览范围时为预览范围）",
    "End Frame": "结束帧",
    "Last frame to bake (included)": "烘焙的最后一帧（包含）",
    "Only Active Chain": "仅活动链",
    "Bake only the active chain of the active armature": "只烘焙活动骨架的活动链",
    "Clear Soft IK Bake": "清除软 IK 烘焙",
    "Remove the keys the last Soft IK bake wrote (only inside its range, only on its channels)":
        "移除上次软 IK 烘焙写入的关键帧（仅在其范围内、仅在其通道上）",
    "Clear only the active chain's bake": "只清除活动链的烘焙",
    "Jump to Frame": "跳转到帧",
    "Go to this frame": "跳到这一帧",
    "Frame to show": "要显示的帧",
    "Fix Target Space": "修正目标空间",
    "Parent the active chain's target to its declared space, keeping its world motion on every frame":
        "把活动链的目标绑定到它声明的空间，并在每一帧上保持它在世界中的运动",
    # Panels and UI lists (panels/)
    "Soft IK 2D": "二维软 IK",
    "Soft IK": "软 IK",
    "Root Filter": "根部滤波",
    "Filter": "滤波器",
    "Speed Gain": "速度增益",
    "Chain": "链",
    "Limits": "限制",
    "Smoothing": "平滑",
    "Status": "状态",
    "Last Bake": "上次烘焙",
    # Panel texts (panels/texts.py)
    "Out of reach: clamped at full extension": "够不到：截断在完全伸直处",
    "Too close: clamped at full fold": "太近：截断在完全折叠处",
    "Soft IK: the reach is softened": "软 IK：伸展距离被软化",
    "Upper bone limit acts": "上段骨骼限制起作用",
    "Lower bone limit acts": "下段骨骼限制起作用",
    "A joint of the chain sits on its limit": "链中有关节停在其限制上",
    "Joint limits stop the chain short of the target": "关节限制使链够不到目标",
    "Move Root: the upper bone is offset": "移动根节点：上段骨骼被偏移",
    "Stretch: the bones are scaled": "拉伸：骨骼被缩放",
    "Target on the shoulder: previous direction kept": "目标在肩部：保持上一帧的方向",
    "Reachable: no limit or strategy acts": "可达：没有限制或策略起作用",
    "No chains yet: in Pose Mode, make the forearm or shin active and press +":
        "还没有链：在姿态模式下，把前臂或小腿设为活动骨骼并点击 +",
    "No error at this frame: bake, solve, or turn on Live Preview": "这一帧没有误差数据：请烘焙、求解或开启实时预览",
    "Target space matches the target's parenting": "目标空间与目标的父级关系一致",
    "Live Preview (current state)": "实时预览（当前状态）",
    "Baked keys at this frame": "这一帧的烘焙关键帧",
    "Near full extension or full fold the solve amplifies target noise: the elbow shivers.":
        "接近完全伸直或完全折叠时，求解会放大目标噪声：肘部会颤动。",
    "Raise Softness, or use Target Smoothing, to calm it.": "提高“软化”，或使用“目标平滑”，可以让它平稳下来。",
    "Not baked yet": "尚未烘焙",
    "Error at frame {frame}: {error}": "第 {frame} 帧的误差：{error}",
    "Sensitivity: {degrees:.1f}° per 1% target jitter": "灵敏度：目标抖动 1% 时关节转动 {degrees:.1f}°",
    "Sensitive: {degrees:.1f}° per 1% target jitter": "高灵敏度：目标抖动 1% 时关节转动 {degrees:.1f}°",
    "Baked frames {start} - {end}": "已烘焙第 {start} - {end} 帧",
    "Max error: {error}": "最大误差：{error}",
    "Mean error: {error}": "平均误差：{error}",
    "Limited on {count} frame(s)": "{count} 帧受限",
    "Frame {frame}": "第 {frame} 帧",
    "{upper} > {lower}": "{upper} > {lower}",
    "Cannot solve: {reason}": "无法求解：{reason}",
    "Worst Frames": "误差最大的帧",
    "Solve": "求解",
    "Bake": "烘焙",
    "Clear Bake": "清除烘焙",
    "Bones": "骨骼",
    "Reach": "可达范围",
    # Operator reports and check messages (messages.py)
    "Chain '{chain}' of '{armature}'":
        "'{armature}' 的链 '{chain}'",
    "{label}: {role} '{bone}' is not in armature '{data}' (renamed or deleted?)":
        "{label}：{role} '{bone}' 不在骨架 '{data}' 中（被重命名或删除了？）",
    'lower bone':
        '下段骨骼',
    'upper bone':
        '上段骨骼',
    "{label}: bone '{bone}' has no parent, but the chain needs {count} bones ending at '{lower}'":
        "{label}：骨骼 '{bone}' 没有父级，但这条链需要以 '{lower}' 结尾的 {count} 段骨骼",
    "{label}: lower bone '{lower}' is not a child of upper bone '{upper}' (its parent is '{parent}')":
        "{label}：下段骨骼 '{lower}' 不是上段骨骼 '{upper}' 的子级（它的父级是 '{parent}'）",
    "{label}: upper bone '{upper}' is not {count} parents above '{lower}' (that bone is '{found}')":
        "{label}：上段骨骼 '{upper}' 不在 '{lower}' 之上第 {count} 级父级（那一级是 '{found}'）",
    "{label}: bone '{bone}' does not inherit rotation and scale from its parent (Bone Properties > "
    'Relations); the chain needs the default inheritance':
        "{label}：骨骼 '{bone}' 没有从父级继承旋转和缩放（骨骼属性 > 关系）；这条链需要默认的继承方式",
    "{label}: upper bone '{bone}' does not inherit rotation from its parent '{parent}'":
        "{label}：上段骨骼 '{bone}' 没有从父级 '{parent}' 继承旋转",
    "{label}: bone '{bone}' has zero length (head and tail, or head and the next bone's head, coincide)":
        "{label}：骨骼 '{bone}' 长度为零（头尾重合，或头部与下一段骨骼的头部重合）",
    '{label}: bones are not in the {plane} plane: {where} is {offset:.6g} off the plane through the head '
    "of '{upper}' ({fraction:.2%} of the chain length)":
        "{label}：骨骼不在 {plane} 平面内：{where} 偏离过 '{upper}' 头部的平面 {offset:.6g}（链长的 {fraction:.2%}）",
    "the tail of '{bone}'":
        "'{bone}' 的尾部",
    "the head of '{bone}'":
        "'{bone}' 的头部",
    "'{name}' is linked from a library and not overridden, so it cannot be changed: select it, Object > "
    "Library Override > Make (library '{path}')":
        "'{name}' 链接自库文件且没有库覆盖，无法修改：选中它，物体 > 库覆盖 > 创建（库文件 '{path}'）",
    "'{name}' is a system library override, not editable yet: select it, Object > Library Override > "
    "Make (library '{path}')":
        "'{name}' 是系统库覆盖，尚不可编辑：选中它，物体 > 库覆盖 > 创建（库文件 '{path}'）",
    "The action '{action}' of '{owner}' is linked from '{path}': the keys went into its local copy '{copy}', "
    "which '{owner}' now plays (later edits of the library's action do not reach it)":
        "'{owner}' 的动作 '{action}' 链接自 '{path}'：关键帧写入了它的本地副本 '{copy}'，"
        "'{owner}' 现在播放该副本（之后对库中动作的修改不会再传到这里）",
    "'{owner}' is a library override without an action: the keys went into its new local action '{action}'":
        "'{owner}' 是没有动作的库覆盖：关键帧写入了它新建的本地动作 '{action}'",
    '{label} has no target object (it was never set or has been deleted)':
        '{label} 没有目标物体（从未设置或已被删除）',
    "{label}: the target is the armature '{armature}' itself; pick an Empty":
        "{label}：目标是骨架 '{armature}' 本身；请选择一个空物体",
    "{label}: target '{target}' is not in scene '{scene}'":
        "{label}：目标 '{target}' 不在场景 '{scene}' 中",
    '{label}: Target Space is OBJECT but no Space Object is set':
        '{label}：目标空间为物体，但未设置空间物体',
    "{label}: space bone '{bone}' is not a bone of '{owner}'":
        "{label}：空间骨骼 '{bone}' 不是 '{owner}' 的骨骼",
    'not parented (world space)':
        '没有父级（世界空间）',
    "parented to bone '{bone}' of '{owner}'":
        "父级为 '{owner}' 的骨骼 '{bone}'",
    "parented to '{owner}'":
        "父级为 '{owner}'",
    "target '{target}' is {actual}, but the chain declares {space} space ({declared})":
        "目标 '{target}' {actual}，但链声明的是 {space} 空间（{declared}）",
    "Chains '{first}' and '{second}' of '{armature}' both use bone '{bone}'; each bone may belong to one chain only":
        "'{armature}' 的链 '{first}' 和 '{second}' 都使用了骨骼 '{bone}'；每根骨骼只能属于一条链",
    '{label}: {problem}. Fix the parenting (Fix Target Space) or change the declared space':
        '{label}：{problem}。请修正父级关系（修正目标空间）或更改声明的空间',
    # Batches, dependency cycles, short bones, chains added twice
    "{label}: bone '{bone}' is too short for this chain: {length:.3g} against a chain length of {total:.6g} "
    "(ratio {ratio:.2g}, below the {least:.0e} a solve needs); lengthen it or move the next bone's head away":
        "{label}：骨骼 '{bone}' 对这条链来说太短：{length:.3g}，而链长为 {total:.6g}（比例 {ratio:.2g}，低于求解所需的 "
        "{least:.0e}）；请加长它，或把下一根骨骼的头部移开",
    "{label}: {role} '{name}' depends on the chain's own bone '{bone}' ({path}), a dependency cycle: it would move "
    "with the pose solved for it. Parent or constrain '{name}' to something the chain does not move (the bone above "
    "the chain, the armature object or the world)":
        "{label}：{role} '{name}' 依赖于链自身的骨骼 '{bone}'（{path}），形成依赖循环：它会随着为它求解的姿态一起移动。"
        "请把 '{name}' 的父级或约束改为链不会移动的东西（链上方的骨骼、骨架物体或世界）",
    "target": "目标",
    "pole": "极向目标",
    "bone '{bone}' of '{owner}'": "'{owner}' 的骨骼 '{bone}'",
    "parent": "父级",
    "constraint '{constraint}' targets": "约束 '{constraint}' 的目标为",
    "driver of {path} reads": "{path} 的驱动器读取",
    "armature": "骨架",
    "vertices of '{owner}' deformed by": "'{owner}' 的顶点受其变形：",
    "Armature '{armature}' has no active Soft IK chain: pick one in the list, or turn off Only Active Chain":
        "骨架 '{armature}' 没有活动的软 IK 链：请在列表中选择一条，或关闭“仅活动链”",
    "{count} of {total} chain(s) not baked (their keys are unchanged):\n{reasons}":
        "{total} 条链中有 {count} 条未烘焙（它们的关键帧保持不变）：\n{reasons}",
    "{count} of {total} chain(s) not solved (their pose is unchanged):\n{reasons}":
        "{total} 条链中有 {count} 条未求解（它们的姿态保持不变）：\n{reasons}",
    "Bone '{bone}' already belongs to chain '{chain}' of '{armature}' ({bones}); select that chain in the list to "
    "edit it, or remove it before adding a new one":
        "骨骼 '{bone}' 已属于 '{armature}' 的链 '{chain}'（{bones}）；请在列表中选择那条链进行编辑，"
        "或先移除它再添加新链",
    'End frame {end} is before start frame {start}':
        '结束帧 {end} 在起始帧 {start} 之前',
    "{label}: no frame of the range has finite positions for every input (not finite: {inputs}); check their "
    "keys, drivers and constraints":
        "{label}：范围内没有任何一帧的所有输入位置都是有限值（非有限值：{inputs}）；请检查它们的关键帧、驱动器和约束",
    "target '{name}'": "目标 '{name}'",
    "pole '{name}'": "极向目标 '{name}'",
    "armature '{name}'": "骨架 '{name}'",
    "parent bone '{name}'": "父骨骼 '{name}'",
    '{armature}/{chain}: {frames} frames, max error {max:.6g}, mean {mean:.6g}, limited on {limited}':
        '{armature}/{chain}：{frames} 帧，最大误差 {max:.6g}，平均 {mean:.6g}，受限 {limited} 帧',
    '; skipped non-finite target frames {frames}':
        '；跳过了目标非有限值的帧 {frames}',
    "{objects}: sampled frame by frame through Blender's own evaluation (constraints, drivers, NLA or physics "
    "need it); inputs animated by keys and parenting alone are read from their F-curves, much faster":
        "{objects}：通过 Blender 自身的求值逐帧采样（约束、驱动器、NLA 或物理模拟需要）；"
        "仅由关键帧和父级关系驱动的输入直接从 F 曲线读取，快得多",
    ' and {count} more':
        ' 等另外 {count} 帧',
    'The active object must be an armature':
        '活动物体必须是骨架',
    'Switch to Pose Mode':
        '请切换到姿态模式',
    'Switch to Pose or Object Mode (the armature is in {mode} Mode)':
        '请切换到姿态模式或物体模式（骨架当前处于 {mode} 模式）',
    "Armature '{armature}' has no active Soft IK chain (add one, or pick one in the list)":
        "骨架 '{armature}' 没有活动的软 IK 链（请添加一条，或在列表中选择一条）",
    'Make the lower bone of the chain (forearm, shin) the active bone':
        '请将链的下段骨骼（前臂、小腿）设为活动骨骼',
    "The active bone '{bone}' has no parent: make the lower bone (forearm, shin) active":
        "活动骨骼 '{bone}' 没有父级：请将下段骨骼（前臂、小腿）设为活动骨骼",
    "Chain '{chain}' has no target: set one in its settings":
        "链 '{chain}' 没有目标：请在它的设置中指定一个",
    "Bone '{bone}' has only {count} bones above it and including it; lower the chain length":
        "骨骼 '{bone}' 连同其上只有 {count} 段骨骼；请减小链长度",
    'Select at most one target object besides the armature (selected: {names})':
        '除骨架外最多只能选择一个目标物体（已选择：{names}）',
    "Added chain '{chain}' ({bones}) reaching for '{target}'":
        "已添加链 '{chain}'（{bones}），目标为 '{target}'",
    "Removed chain '{chain}'":
        "已移除链 '{chain}'",
    "Chain '{chain}' of '{armature}' comes from the rig's library file and cannot be removed in a library "
    "override; remove it in the library file":
        "'{armature}' 的链 '{chain}' 来自绑定的库文件，无法在库覆盖中删除；请在库文件中删除它",
    'No selected armature has Soft IK chains (add one with Add Soft IK Chain)':
        '选中的骨架都没有软 IK 链（请用“添加软 IK 链”添加）',
    'Solved {count} chain(s) at frame {frame}; largest error {error:.6g}':
        '已在第 {frame} 帧求解 {count} 条链；最大误差 {error:.6g}',
    'Soft IK: baking frames {start}-{end}':
        '软 IK：正在烘焙第 {start}-{end} 帧',
    'Nothing to clear: no chain of the selected armatures has a bake':
        '没有可清除的内容：选中骨架的链都没有烘焙结果',
    'Removed baked keys from {count} curve(s)':
        '已从 {count} 条曲线中移除烘焙的关键帧',
    "Target '{target}' already matches {space} space":
        "目标 '{target}' 已经与 {space} 空间一致",
    "Chain '{chain}': Target Space is OBJECT but no Space Object is set":
        "链 '{chain}'：目标空间为物体，但未设置空间物体",
    "Chain '{chain}': the declared {space} space ({path}) moves with the chain's own bone '{bone}'; declare a space "
    "the chain does not move (a bone above the chain, the armature or the world)":
        "链 '{chain}'：声明的 {space} 空间（{path}）会随链自身的骨骼 '{bone}' 移动；请声明一个链不会移动的空间"
        "（链上方的骨骼、骨架或世界）",
    "Chain '{chain}': the target cannot be parented to itself":
        "链 '{chain}'：目标不能以自身为父级",
    "Re-parented '{target}' to {space} space, keeping its world motion on {count} frame(s)":
        "已将 '{target}' 重新设为 {space} 空间的子级，并在 {count} 帧上保持它在世界中的运动",
    # Pin Target / Unpin Target, pinned ranges, kept keys (operators/pinning.py, properties.py, panels)
    "Pin Target": "固定目标",
    "Unpin Target": "取消固定目标",
    "Unpin": "取消固定",
    "Pin": "固定",
    "Blend Frames": "过渡帧数",
    "Pinned From": "固定起始帧",
    "Pinned To": "固定结束帧",
    "Pinned Target": "被固定的目标",
    "The object that was pinned": "被固定的物体",
    "Kept Keys": "保留的键",
    "First frame the target holds still in world space": "目标在世界空间中保持不动的第一帧",
    "Last frame the target holds still in world space": "目标在世界空间中保持不动的最后一帧",
    "Frames after the pin over which the target returns to its own motion": "固定结束后目标回到自身运动所用的帧数",
    "First pinned frame: the target keeps its world transform of this frame (default: the current frame)":
        "固定的第一帧：目标保持这一帧的世界变换（默认：当前帧）",
    "Last pinned frame (included; default: 12 frames on)": "固定的最后一帧（包含；默认：往后 12 帧）",
    "Frames after the pin over which the target eases back to its own motion (0: it jumps back on the next frame)":
        "固定结束后目标平滑回到自身运动所用的帧数（0：下一帧直接跳回）",
    "Frames the last bake keyed (fewer than its frames when Key Reduction was on)":
        "上次烘焙设置了键的帧数（开启“减少关键帧”时少于烘焙的帧数）",
    "Hold the active chain's target still in world space over a frame range (a planted foot), then ease it back":
        "在一段帧范围内让活动链的目标在世界空间中保持不动（脚踩地面），之后平滑回到原运动",
    "Undo a pin of the active chain's target: its keys go back exactly to what they were":
        "撤销活动链目标的一次固定：它的键精确恢复为原来的样子",
    "Which pinned range (-1: the one at the current frame, else the last one)":
        "哪一个固定范围（-1：当前帧所在的那个，否则最后一个）",
    "Pinned {start}-{end} (+{blend} blend)": "已固定 {start}-{end}（+{blend} 过渡）",
    # Bake > Key Reduction (operators/solve_bake.py, rigging/reduced_bake.py)
    "Key Reduction": "减少关键帧",
    "Reduction Tolerance": "减少容差",
    "Target Keys": "目标的键",
    "Fit": "拟合",
    "A key on every frame where a channel moves": "通道变化的每一帧都设置键",
    "Keys on the target's own key frames, plus the frames the tolerance needs":
        "在目标自身的关键帧上设置键，并加上满足容差所需的帧",
    "As few keys as keep the tip within the tolerance (linear keys on the tip path)":
        "用尽可能少的键使末端保持在容差之内（沿末端路径的线性键）",
    "Keep fewer keys (easier to edit), the tip within the tolerance of the full bake on every frame, measured in "
    "playback":
        "保留更少的键（便于编辑），每一帧回放测得的末端与完整烘焙的差距都在容差之内",
    "How far the played-back tip of the reduced keys may stray from the full bake's, as a fraction of the "
    "chain's length":
        "减少后的键回放时末端与完整烘焙末端之间允许的最大距离，以链长的比例表示",
    "Kept keys: {kept} of {frames} frames": "保留的键：{frames} 帧中的 {kept} 帧",
    "Key Shape": "键的形状",
    "Interpolation of the reduced keys": "减少后的键的插值方式",
    "Linear": "线性",
    "Straight lines between the kept keys": "保留的键之间用直线连接",
    "Bezier": "贝塞尔",
    "Smooth curves through the kept keys (automatic handles), easier to reshape by hand":
        "穿过保留的键的平滑曲线（自动控制柄），更便于手动调整",
    # pinning.py / reduced_bake.py
    ("'{target}' was re-parented since it was pinned on frames {start}-{end}, so the keys the pin "
     "saved would move it elsewhere; parent it back as it was to unpin, or keep the pin"):
        "'{target}' 在第 {start}-{end} 帧被固定后又被重新设置了父级，固定所保存的键会把它移到别处；"
        "请把父级恢复原样后再取消固定，或保留这次固定",
    "Chain '{chain}' has no target to pin; set its Target first":
        "链 '{chain}' 没有可固定的目标；请先设置它的目标",
    ("Target '{target}' has the acting constraint '{constraint}', so its keys alone do not say where it "
     "is; mute or remove the constraint before pinning"):
        "目标 '{target}' 上有正在生效的约束 '{constraint}'，仅凭它的键无法确定其位置；固定前请静音或删除该约束",
    ("Target '{target}' has delta transforms, which the pin does not convert; set them back to zero (Object "
     "Properties > Transform > Delta Transform) first"):
        "目标 '{target}' 有增量变换，固定不会转换它们；请先把它们归零（物体属性 > 变换 > 增量变换）",
    "Target '{target}': {path} is driven, so keys cannot hold it; remove or mute the driver before pinning":
        "目标 '{target}'：{path} 由驱动器控制，键无法使其固定；固定前请删除或静音该驱动器",
    "Target '{target}' plays NLA strips; pin it in its action alone (leave tweak mode, mute the NLA tracks)":
        "目标 '{target}' 在播放 NLA 片段；请只在它的动作中固定它（退出调整模式，静音 NLA 轨道）",
    ("Target '{target}': the F-curve {path} has modifiers or extrapolates beyond its keys, which the pin "
     "cannot keep exact; remove the modifiers and set Extrapolation to Constant first"):
        "目标 '{target}'：F 曲线 {path} 带有修改器或在键之外外插，固定无法保持精确；"
        "请先删除修改器并把外插设为常量",
    "Chain '{chain}' is already pinned on frames {start}-{end} (with its blend frames); unpin that first":
        "链 '{chain}' 已在第 {start}-{end} 帧（含过渡帧）被固定；请先取消那次固定",
    ("Pinned '{target}' in world space on frames {start}-{end}, blending back over {blend} frame(s); "
     "its keys changed on frames {first}-{last} only"):
        "已在第 {start}-{end} 帧把 '{target}' 固定在世界空间中，并在 {blend} 帧内过渡回原运动；"
        "只有第 {first}-{last} 帧的键被改动",
    "Unpinned '{target}' on frames {start}-{end}: its keys are as they were before the pin":
        "已取消 '{target}' 在第 {start}-{end} 帧的固定：它的键恢复为固定之前的样子",
    "Chain '{chain}' has no pinned range":
        "链 '{chain}' 没有固定的帧范围",
    ("Chain '{chain}': the pin on frames {later_start}-{later_end} rewrote keys the pin on frames "
     "{start}-{end} saved; unpin it first"):
        "链 '{chain}'：第 {later_start}-{later_end} 帧的固定改写了第 {start}-{end} 帧的固定所保存的键；"
        "请先取消前者",
    ("{label}: kept {kept} of {full} frames' keys (within {tolerance:.3g} of the full bake's tip on every "
     "frame, measured in playback: worst {worst:.3g})"):
        "{label}：在 {full} 帧中保留了 {kept} 帧的键（每一帧回放测得的末端与完整烘焙相差都在 {tolerance:.3g} 以内："
        "最大 {worst:.3g}）",
    # key_target.py / bake_records.py
    ("Scene '{scene}' remaps time (Output Properties > Frame Range > Time Stretching: Old {old}, New "
     "{new}), so keys would not play on the frames they were solved for; set Old and New to the same "
     "value first (stretch time afterwards)"):
        "场景“{scene}”重映射了时间（输出属性 > 帧范围 > 时间拉伸：旧 {old}，新 {new}），键将不会在烘焙它们的帧上播放；"
        "请先把旧值和新值设为相同（之后再拉伸时间）",
    ("Action '{action}' of '{armature}' is also played by {users}: keys written into it would change their "
     "animation too. Give '{armature}' its own copy (click the user count next to the action's name in "
     "the Action Editor) first"):
        "“{armature}”的动作“{action}”也由 {users} 播放：写入其中的键会同时改变它们的动画。"
        "请给“{armature}”一份自己的副本（在动作编辑器中点击动作名称旁的用户数）",
    ("The action '{action}' of '{armature}' is blended (Blending {blend}, Influence {influence:.3g}), so "
     "keys would not play as written; set Blending to Replace and Influence to 1 (NLA editor) first"):
        "“{armature}”的动作“{action}”处于混合状态（混合 {blend}，影响 {influence:.3g}），键将不会按烘焙结果播放；"
        "请先（在 NLA 编辑器中）把混合设为替换、影响设为 1",
    ("'{armature}' is tweaking NLA strip '{strip}', which is played reversed or with animated strip "
     "time; turn off Reversed and Animated Strip Time, or leave tweak mode, first"):
        "“{armature}”正在调整 NLA 片段“{strip}”，该片段反向播放或使用了动画片段时间；"
        "请先关闭“反向”和“动画片段时间”，或退出调整模式",
    ("'{armature}' is tweaking NLA strip '{strip}', which blends (Blending not Replace, blend in/out "
     "or animated influence), so keys would not play as written; set Blending to Replace, Blend In and "
     "Out to 0 and turn off Animated Influence first"):
        "“{armature}”正在调整 NLA 片段“{strip}”，该片段会混合（混合方式不是替换、有淡入/淡出或动画影响），"
        "键将不会按烘焙结果播放；请先把混合设为替换、淡入和淡出设为 0，并关闭“动画影响”",
    ("Frames {start}-{end} go beyond NLA strip '{strip}' of '{armature}' (frames {strip_start}-"
     "{strip_end}), where the tweaked action does not play; use frames within the strip"):
        "第 {start}-{end} 帧超出了“{armature}”的 NLA 片段“{strip}”（第 {strip_start}-{strip_end} 帧），"
        "在那里被调整的动作不会播放；请使用片段范围内的帧",
    ("Frames {start}-{end} span more than one repeat of NLA strip '{strip}' of '{armature}' (one repeat is "
     "{period} frames, e.g. {repeat_start}-{repeat_end}); use the frames of a single repeat: its keys play "
     "in every repeat"):
        "第 {start}-{end} 帧跨越了“{armature}”的 NLA 片段“{strip}”的多次重复（一次重复为 {period} 帧，"
        "例如 {repeat_start}-{repeat_end}）；请只使用一次重复的帧：它的键会在每次重复中播放",
    ("{label}: keys baked into action '{action}' were kept: '{armature}' does not play that action now; "
     "assign it again (or its NLA strip) and Clear"):
        "{label}：烘焙到动作“{action}”中的键已保留：“{armature}”当前没有播放该动作；"
        "请重新指定它（或它的 NLA 片段）后再清除",
    ("{label}: keys baked into action '{action}' were kept: it is also played by {users}, whose animation "
     "would change; give '{armature}' its own copy of the action and Clear"):
        "{label}：烘焙到动作“{action}”中的键已保留：它也由 {users} 播放，它们的动画会被改变；"
        "请给“{armature}”一份自己的动作副本后再清除",
    "{label}: kept {count} baked key(s) edited since the bake (they are yours now)":
        "{label}：保留了 {count} 个烘焙后被编辑过的键（它们现在属于你）",
    # IK/FK blend, stretch to reach, snap (issue 14)
    ("{label}: IK Influence is driven; the bake reads it per frame from keys only. Key it instead "
     "of driving it (or mute the driver)"):
        "{label}：IK 影响由驱动器控制；烘焙只从关键帧逐帧读取它。请改为给它插入关键帧（或静音驱动器）",
    ("{label}: Preserve Volume thins the stretched bones, which bone '{bone}' would shear "
     "(Inherit Scale: {mode}); set its Inherit Scale to Aligned (Bone Properties > Relations), "
     "or turn off Preserve Volume"):
        "{label}：“保持体积”会让拉伸的骨骼变细，骨骼“{bone}”会因此被剪切（继承缩放：{mode}）；"
        "请把它的继承缩放设为“对齐”（骨骼属性 > 关系），或关闭“保持体积”",
    "Snapped the target{pole} of {count} chain(s) to the FK pose on {frames} frame(s)":
        "已在 {frames} 帧上把 {count} 条链的目标{pole}吸附到 FK 姿态",
    " and pole": "和极向目标",
    "{label}: Bend set to {bend:+d}, the side the FK elbow bends to":
        "{label}：弯曲已设为 {bend:+d}，即 FK 肘部弯向的一侧",
    ("{label}: the FK elbow bends to both sides over these frames; without a pole IK keeps one "
     "side (Bend): give the chain a pole to follow FK's side"):
        "{label}：在这些帧中 FK 肘部向两侧弯曲；没有极向目标时 IK 只保持一侧（弯曲）："
        "请给链添加极向目标以跟随 FK 的一侧",
    "IK Influence": "IK 影响",
    "Stretch to Reach: the bones are scaled toward the target": "拉伸够到目标：骨骼被朝目标放大",
    "Snap Target to FK": "目标吸附到 FK",
    "Put the active chain's target on the FK tip and its pole on the FK elbow side: turning IK on shows no jump":
        "把活动链的目标放到 FK 末端，把极向目标放到 FK 肘部一侧：开启 IK 时不会跳变",
    "Key the target's (and pole's) location where it is snapped": "在吸附处为目标（和极向目标）的位置插入关键帧",
    "Frame Range": "帧范围",
    "Snap and key every frame from Start to End from the FK animation, not only the current frame":
        "按 FK 动画在起始帧到结束帧的每一帧吸附并插入关键帧，而不只是当前帧",
    "First frame to snap (default: the scene's)": "吸附的第一帧（默认：场景的）",
    "Last frame to snap (included)": "吸附的最后一帧（包含）",
    "Snap to FK": "吸附到 FK",
    ("Stretch to Reach lengthens the arm for a target beyond its reach; the Stretch strategy "
     "(Limits) scales it only when a joint limit blocks it"):
        "“拉伸够到目标”会在目标超出够及范围时拉长手臂；“拉伸”策略（限制）只在关节限制阻挡时才缩放它",
    ("Blend of the IK solution over the bones' own FK keys (0 = the FK keys as they are, "
     "1 = full IK); keyable"):
        "IK 解算结果在骨骼自身 FK 关键帧之上的混合（0 = 保持 FK 关键帧原样，1 = 完全 IK）；可插入关键帧",
    "Stretch to Reach": "拉伸够到目标",
    ("Scale both bones up to Max Stretch so the tip reaches a target beyond full reach "
     "(scale keys on the upper bone); unlike the Stretch limit strategy, no joint limit is involved"):
        "把两根骨骼最多放大到“最大拉伸”，使末端够到超出完全伸展范围的目标（上骨骼上的缩放关键帧）；"
        "与“拉伸”限制策略不同，它与关节限制无关",
    "Max Stretch": "最大拉伸",
    "Largest scale Stretch to Reach may give the bones (1.25 = a quarter longer)":
        "“拉伸够到目标”可给骨骼的最大缩放（1.25 = 长四分之一）",
    "Preserve Volume": "保持体积",
    ("Stretched bones thin across the bone by 1/sqrt(scale), keeping their area (needs Inherit "
     "Scale: Aligned on the lower bones)"):
        "拉伸的骨骼在横向按 1/sqrt(缩放) 变细，保持面积（下方骨骼需要“继承缩放：对齐”）",
    # takes.py
    ("Action Name '{action}' names one action, but {count} armatures are baked; leave it empty (each "
     "armature gets its own take) or bake one armature at a time"):
        "动作名称“{action}”只能命名一个动作，但要烘焙 {count} 个骨架；请留空（每个骨架各得一个镜次），"
        "或一次只烘焙一个骨架",
    ("An action named '{action}' already exists; choose another Action Name (or assign that action "
     "and bake without To New Action)"):
        "名为“{action}”的动作已存在；请换一个动作名称（或指定该动作后不勾选“烘焙到新动作”再烘焙）",
    ("'{armature}' is tweaking an NLA strip, whose action the keys would have to go into; leave "
     "tweak mode (NLA editor) or bake without To New Action"):
        "“{armature}”正在调整 NLA 片段，键只能写入该片段的动作；请退出调整模式（NLA 编辑器），"
        "或不勾选“烘焙到新动作”再烘焙",
    ("'{armature}' was baked into the new action '{take}', a copy of '{action}', which is unchanged: "
     "switch back to it in the Action Editor"):
        "“{armature}”已烘焙到新动作“{take}”（“{action}”的副本），原动作保持不变："
        "可在动作编辑器中切换回它",
    "'{armature}' was baked into the new action '{take}'":
        "“{armature}”已烘焙到新动作“{take}”",
    "Take '{take}' of '{armature}' was pushed down to the NLA track '{track}'":
        "“{armature}”的镜次“{take}”已下推到 NLA 轨道“{track}”",
    # operators/mirror.py
    ("{label}: bone(s) {bones} name no side (.L/.R, _L/_R, -L/-R, Left/Right), so there is no opposite "
     "bone to mirror to; name the bones by Blender's left/right convention"):
        "{label}：骨骼 {bones} 的名称不含左右（.L/.R、_L/_R、-L/-R、Left/Right），没有可镜像到的对侧骨骼；"
        "请按 Blender 的左右命名约定命名骨骼",
    ("{label}: the opposite bone(s) {bones} are not in armature '{armature}'; add them (Edit Mode: "
     "Armature > Symmetrize) first"):
        "{label}：骨架“{armature}”中没有对侧骨骼 {bones}；请先添加它们（编辑模式：骨架 > 对称）",
    "{label}: the opposite chain already exists: {reason}":
        "{label}：对侧的链已存在：{reason}",
    "Mirrored chain '{chain}' to '{mirror}' ({bones}) reaching for '{target}'":
        "已将链“{chain}”镜像为“{mirror}”（{bones}），目标为“{target}”",
    "Mirror Soft IK Chain":
        "镜像 Soft IK 链",
    "Create the active chain's opposite (bones .L/.R, _L/_R, -L/-R, Left/Right), bend and target mirrored":
        "创建活动链的对侧链（骨骼 .L/.R、_L/_R、-L/-R、Left/Right），弯曲方向和目标均镜像",
    # operators/solve_bake.py: bake into a take
    "To New Action":
        "烘焙到新动作",
    ("Bake into a new action (a copy of the current one, assigned to the armature), leaving the current "
     "action untouched"):
        "烘焙到一个新动作（当前动作的副本，并指定给骨架），当前动作保持不变",
    "Action Name":
        "动作名称",
    "Name of the new action of To New Action (empty: the current action's name followed by 'Take')":
        "“烘焙到新动作”所建新动作的名称（留空：当前动作的名称后加“Take”）",
    "Push to NLA":
        "下推到 NLA",
    "With To New Action: after the bake, push the new action down to a new NLA track (as Push Down does)":
        "配合“烘焙到新动作”：烘焙后把新动作下推到一条新的 NLA 轨道（与“下推”相同）",
    # pipeline*.py / cli.py
    ("{label}: driver {path} of '{owner}' needs auto-run: its Python expression '{expression}' does not run while "
     "auto-run of the file's scripts is off (the default for files baked from the command line), so the chain "
     "would bake from a stale value; pass --enable-autoexec if you trust the file, or make it a simple expression"):
        "{label}：'{owner}' 的驱动器 {path} 需要自动运行：自动运行文件脚本关闭时（命令行烘焙文件的默认设置），"
        "它的 Python 表达式 '{expression}' 不会运行，链会用过时的值烘焙；如果信任该文件，请加上 --enable-autoexec，"
        "或将其改为简单表达式",
    "'{file}' does not exist or is not a file": "'{file}' 不存在或不是文件",
    "'{file}' could not be opened as a .blend file (corrupt or truncated?): {reason}":
        "无法将 '{file}' 作为 .blend 文件打开（文件损坏或被截断？）：{reason}",
    ("Blender ended without a report while baking '{file}' (exit status {status}; it crashed or was killed); the "
     "other files were baked on their own"):
        "烘焙 '{file}' 时 Blender 未留下报告就结束了（退出状态 {status}；崩溃或被终止）；其他文件已各自烘焙",
    "Baking '{file}' took longer than {seconds} s and was stopped; raise --timeout or bake it alone":
        "烘焙 '{file}' 超过了 {seconds} 秒，已被停止；请增大 --timeout 或单独烘焙它",
    ("Baking '{file}' stopped on an unexpected error ({reason}); the file was not saved. Please report it with "
     "the 'log' of this file's report entry"):
        "烘焙 '{file}' 时遇到意外错误（{reason}）而停止；文件未保存。请附上此文件报告条目中的 'log' 报告该问题",
    "'{file}' was baked but could not be saved to '{path}': {reason}":
        "'{file}' 已烘焙，但无法保存到 '{path}'：{reason}",
    "'{file}': no armature in scene '{scene}' has Soft IK chains; nothing baked":
        "'{file}'：场景 '{scene}' 中没有带 Soft IK 链的骨架；未烘焙任何内容",
    ("'{file}': no armature named '{name}' with Soft IK chains in scene '{scene}' (found: {found}); check "
     "--armature"):
        "'{file}'：场景 '{scene}' 中没有名为 '{name}' 且带 Soft IK 链的骨架（找到：{found}）；请检查 --armature",
    "'{file}': no Soft IK chain named '{name}' on the selected armatures (found: {found}); check --chain":
        "'{file}'：所选骨架上没有名为 '{name}' 的 Soft IK 链（找到：{found}）；请检查 --chain",
    "none": "无",
    ("[{index}/{count}] {file}: {baked} chain(s) baked, {refused} refused{names}, largest error "
     "{error:.6g}{saved} ({seconds:.1f} s)"):
        "[{index}/{count}] {file}：已烘焙 {baked} 条链，拒绝 {refused} 条{names}，最大误差 {error:.6g}{saved}"
        "（{seconds:.1f} 秒）",
    "[{index}/{count}] {file}: no chain baked, {refused} refused{names}; not saved ({seconds:.1f} s)":
        "[{index}/{count}] {file}：没有链被烘焙，拒绝 {refused} 条{names}；未保存（{seconds:.1f} 秒）",
    ", saved to {path}": "，已保存到 {path}",
    ", not saved (no --save or --output-dir)": "，未保存（没有 --save 或 --output-dir）",
    "[{index}/{count}] {file}: FAILED: {reason} ({seconds:.1f} s)":
        "[{index}/{count}] {file}：失败：{reason}（{seconds:.1f} 秒）",
    "{files} file(s): {baked} chain(s) baked, {refused} refused, {failed} file(s) failed; report: {report}":
        "{files} 个文件：已烘焙 {baked} 条链，拒绝 {refused} 条，{failed} 个文件失败；报告：{report}",
    "--frames must be START-END with whole numbers, END not before START (got '{value}')":
        "--frames 必须是整数 START-END，且 END 不早于 START（收到 '{value}'）",
}


def translation_table() -> dict[str, dict[tuple[str, str], str]]:
    """The dictionary handed to ``bpy.app.translations.register``."""
    return {"zh_HANS": {(ctxt, msgid): msgstr for ctxt in CONTEXTS for msgid, msgstr in ZH.items()}}


def register() -> None:
    bpy.app.translations.register(__name__, translation_table())


def unregister() -> None:
    bpy.app.translations.unregister(__name__)
