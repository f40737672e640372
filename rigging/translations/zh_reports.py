"""zh_HANS of the check and report messages (rigging/messages.py): chain checks, batches, cycles."""

from __future__ import annotations

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
    "{label}: target '{target}' is not in scene '{scene}', where Blender never evaluates it: link it into the "
    "scene or pick another target":
        "{label}：目标 '{target}' 不在场景 '{scene}' 中，Blender 在该场景中从不计算它：请把它链接到场景中，或另选目标",
    "'{name}' follows bone '{bone}' of '{armature}' ({path}), which shows its Rest Position, where Blender plays no "
    "pose: set Pose Position on '{armature}' first (Armature Properties > Skeleton)":
        "'{name}' 跟随 '{armature}' 的骨骼 '{bone}'（{path}），该骨架显示的是静置位置，Blender 不播放任何"
        "姿态：请先把 '{armature}' 切换到姿态位置（骨架属性 > 骨架）",
    "{label}: {role} '{name}' follows bone '{bone}' of '{armature}' ({path}), which shows its Rest Position, where "
    "Blender plays no pose: set Pose Position on '{armature}' first (Armature Properties > Skeleton)":
        "{label}：{role} '{name}' 跟随 '{armature}' 的骨骼 '{bone}'（{path}），该骨架显示的是静置位置，"
        "Blender 不播放任何姿态：请先把 '{armature}' 切换到姿态位置（骨架属性 > 骨架）",
    "'{armature}' shows its Rest Position, where Blender plays no pose (the chains' parents stand at rest and keys "
    "do not act): set Pose Position first (Armature Properties > Skeleton)":
        "'{armature}' 显示的是静置位置，Blender 不播放任何姿态（链的父级停在静置姿态，关键帧不起作用）：请先切换到"
        "姿态位置（骨架属性 > 骨架）",
    "{label}: pole '{pole}' is not in scene '{scene}', where Blender never evaluates it: link it into the scene "
    "or clear the chain's Pole":
        "{label}：极向目标 '{pole}' 不在场景 '{scene}' 中，Blender 在该场景中从不计算它：请把它链接到场景中，"
        "或清除该链的极向目标",
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
    "{label} moves with the solve of {other} ({path}), which moves with this chain's in turn, so neither can be "
    "solved first. Give one of them a target and parents the other does not move":
        "{label} 随 {other} 的求解而移动（{path}），而后者又随本链移动，因此两者都无法先求解。"
        "请让其中一条链的目标和父级不受另一条链移动。",
    "{label} hangs from what this bake moved ({path}, solved by {other}): its keys over frames {start}-{end} were "
    "solved against the pose before it; where that pose changed, Blender plays its tip elsewhere and its keyed error "
    "is out of date. Bake it again":
        "{label} 挂在本次烘焙移动的对象上（{path}，由 {other} 求解）：它在第 {start}-{end} 帧的关键帧是按烘焙前的姿态"
        "求解的；该姿态有变化之处，Blender 播放的末端已不在原处，其记录的误差已过时。请重新烘焙它",
    "{label} hangs from what this Clear gave back ({path}, of {other}): its keys over frames {start}-{end} were "
    "solved against the baked pose; where the pose changed, Blender plays its tip elsewhere and its keyed error is "
    "out of date. Bake it again, or clear it too":
        "{label} 挂在本次清除所恢复的对象上（{path}，属于 {other}）："
        "它在第 {start}-{end} 帧的关键帧是按烘焙后的姿态求解的；姿态有变化之处，"
        "Blender 播放的末端已不在原处，其记录的误差已过时。请重新烘焙它，或一并清除",
    "{label}: {role} '{name}' depends on the chain's own bone '{bone}' ({path}), a dependency cycle: it would move "
    "with the pose solved for it. Parent or constrain '{name}' to something the chain does not move (the bone above "
    "the chain, the armature object or the world)":
        "{label}：{role} '{name}' 依赖于链自身的骨骼 '{bone}'（{path}），形成依赖循环：它会随着为它求解的姿态一起移动。"
        "请把 '{name}' 的父级或约束改为链不会移动的东西（链上方的骨骼、骨架物体或世界）",
    "target": "目标",
    "pole": "极向目标",
    "space": "空间",
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
    "{channels}: a driver and keys set elements of one property, which Blender 4.5 to 5.2 now and then evaluate "
    "with an element from the frame before (playback shows the object jump for a frame); the bake read each "
    "frame until two evaluations agreed. To avoid it, drive another property (e.g. the delta transform) instead":
        "{channels}：驱动器和关键帧分别设置同一属性的不同分量，Blender 4.5 至 5.2 偶尔会用上一帧的分量求值"
        "（回放时物体会跳动一帧）；烘焙对每一帧反复读取，直到两次求值一致。要避免此问题，请改为驱动另一个属性"
        "（例如增量变换）",
    "{channels}: frames {frames} gave a different value every time Blender evaluated them (a driver such as "
    "random()?); the keys there follow one evaluation, which playback will not repeat":
        "{channels}：第 {frames} 帧每次求值的结果都不同（是否有 random() 之类的驱动器？）；这些帧的关键帧沿用了"
        "其中一次求值，回放不会重现它",
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
}
