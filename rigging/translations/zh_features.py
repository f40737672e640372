"""zh_HANS of the messages and labels of pinning, key reduction, key targets and bake records, IK/FK
blending, takes, mirroring and pipelines."""

from __future__ import annotations

ZH: dict[str, str] = {
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
    ("{label}: {count} of your key(s) the bake had replaced were not put back: you keyed their "
     "frames or deleted their curve since, and what you did stays (Undo brings the bake back)"):
        "{label}：烘焙替换掉的你的 {count} 个键没有放回：你之后在这些帧上打了关键帧或删除了它们的曲线，"
        "你所做的保持不变（撤销可恢复烘焙）",
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
