use std::process::Command;

const VECTOR_ADD: &str =
    "kernel @vector_add(%a: ptr<global>, %out: ptr<global>) max_workgroup_size 64 {
  %i = workitem.id x
  %pa = ptr.offset %a, %i, f32
  %x = load f32, %pa, align 4
  %po = ptr.offset %out, %i, f32
  store %po, %x, align 4
}
";

fn kosmosc(file: &str, text: &str, args: &[&str]) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("kosmosc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(file);
    std::fs::write(&input, text).unwrap();
    Command::new(env!("CARGO_BIN_EXE_kosmosc"))
        .arg(&input)
        .args(args)
        .current_dir(&dir)
        .output()
        .unwrap()
}

#[test]
fn compiles_to_every_output() {
    for (target, emit) in [
        ("gfx942", "hsaco"),
        ("gfx950", "asm"),
        ("sm_90a", "ptx"),
        ("sm_90a", "llvm"),
    ] {
        let out = kosmosc(
            "va.kir",
            VECTOR_ADD,
            &["--target", target, "--emit", emit, "-o", "out.txt"],
        );
        assert!(
            out.status.success(),
            "{target} {emit}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let dis = kosmosc(
        "va.kir",
        VECTOR_ADD,
        &["--target", "gfx942", "--disassemble"],
    );
    assert!(dis.status.success());
    assert!(String::from_utf8_lossy(&dis.stdout).contains("s_endpgm"));
}

#[test]
fn errors_name_the_position_and_exit_nonzero() {
    let out = kosmosc(
        "bad.kir",
        "kernel @k() max_workgroup_size 4 {\n  %x = frob\n}\n",
        &["--target", "sm_90a"],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.kir:2:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ill = "kernel @k(%p: ptr<global>) max_workgroup_size 4 {\n  %x = const f32 1.0\n  %y = and %x, %x\n  store %p, %y, align 4\n}\n";
    let out = kosmosc("ill.kir", ill, &["--target", "gfx942"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not verify"));
    let out = kosmosc("va.kir", VECTOR_ADD, &["--target", "sm_80"]);
    assert!(!out.status.success());
}
