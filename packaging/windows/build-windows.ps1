# Build Memory Wall's Windows installer (recipe: not run on the Linux build machine).
# From the repository root, in PowerShell, with Python 3.11 and Inno Setup 6 installed:
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build-windows.ps1
#   ... -SignCommand 'signtool.exe sign /fd sha256 /tr http://timestamp.digicert.com /td sha256 /f C:\cert.pfx /p PASSWORD $f'
# Output: dist\memory-wall\ (one folder) and dist\memory-wall-<version>-windows-x64-setup.exe
param(
    [string]$Python = "python",
    [string]$SignCommand = ""
)
$ErrorActionPreference = "Stop"
$Root = Resolve-Path "$PSScriptRoot\..\.."
Set-Location $Root

function Step($name, [scriptblock]$block) {
    $t = [Diagnostics.Stopwatch]::StartNew()
    Write-Host "==> $name"
    & $block
    if ($LASTEXITCODE -and $LASTEXITCODE -ne 0) { throw "$name failed ($LASTEXITCODE)" }
    Write-Host ("    {0:N1} s" -f $t.Elapsed.TotalSeconds)
}

Step "python environment" {
    if (-not (Test-Path .venv\Scripts\python.exe)) { & $Python -m venv .venv }
    .venv\Scripts\python.exe -m pip install -q --upgrade pip
    .venv\Scripts\python.exe -m pip install -q -e ".[package]"
}
$Version = .venv\Scripts\python.exe -c "import tomllib;print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])"

Step "icons" { .venv\Scripts\python.exe packaging\make-icons }
Step "pyinstaller one-folder" {
    .venv\Scripts\python.exe -m PyInstaller --noconfirm --clean --log-level WARN `
        --workpath build\pyinstaller --distpath dist packaging\memory-wall.spec
}
Step "smoke test (folder)" {
    # windowed exe: no console output, but the exit code is real
    $env:QT_QPA_PLATFORM = "offscreen"
    $p = Start-Process -FilePath dist\memory-wall\memory-wall.exe -ArgumentList "--smoke" -Wait -PassThru -NoNewWindow
    Remove-Item Env:QT_QPA_PLATFORM
    if ($p.ExitCode -ne 0) { throw "memory-wall.exe --smoke exited $($p.ExitCode)" }
}
if ($SignCommand) {
    Step "sign memory-wall.exe" {
        $cmd = $SignCommand.Replace('$f', '"' + (Resolve-Path dist\memory-wall\memory-wall.exe) + '"')
        cmd /c $cmd
    }
}
$Iscc = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
if (-not $Iscc) { $Iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
Step "inno setup" {
    if ($SignCommand) {
        & $Iscc "/DAppVersion=$Version" /DSign "/Ssigntool=$SignCommand" packaging\windows\memory-wall.iss
    } else {
        & $Iscc "/DAppVersion=$Version" packaging\windows\memory-wall.iss
    }
}
Get-ChildItem dist\*.exe | ForEach-Object { "{0,-50} {1,8:N1} MB" -f $_.Name, ($_.Length / 1MB) }
