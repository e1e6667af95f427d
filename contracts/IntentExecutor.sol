// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Intent, IntentStatus} from "./IntentTypes.sol";

interface IIntentValidator {
    function canExecute(Intent calldata intent) external view returns (bytes1);
}

/// @notice Executes validated intents. Senders fund their intents through deposits held here; each
/// (sender, nonce) pair executes at most once, whatever the validator says.
contract IntentExecutor is Ownable, ReentrancyGuard {
    IIntentValidator public validator;

    mapping(address => uint256) public deposits;
    mapping(address => mapping(uint256 => bool)) public nonceUsed;
    mapping(bytes32 => uint256) public policySpent;

    event IntentExecuted(bytes32 indexed intentHash, bytes1 status, address indexed executor, bytes returnData);
    event ValidatorChanged(address indexed previous, address indexed current);
    event Deposited(address indexed sender, address indexed from, uint256 amount);
    event Withdrawn(address indexed sender, uint256 amount);

    error ExecutionDenied(bytes1 status);
    error ExecutionFailed(bytes1 status, bytes data);
    error InsufficientDeposit(uint256 available, uint256 requested);
    error WithdrawFailed();

    constructor(address initialOwner) Ownable(initialOwner) {}

    /// @dev The origin let anyone replace the validator; only the owner may.
    function setValidator(address newValidator) external onlyOwner {
        emit ValidatorChanged(address(validator), newValidator);
        validator = IIntentValidator(newValidator);
    }

    function deposit() external payable {
        _credit(msg.sender);
    }

    function depositFor(address sender) external payable {
        _credit(sender);
    }

    function withdraw(uint256 amount) external nonReentrant {
        uint256 available = deposits[msg.sender];
        if (amount > available) revert InsufficientDeposit(available, amount);
        deposits[msg.sender] = available - amount;
        emit Withdrawn(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert WithdrawFailed();
    }

    /// @notice Runs `intent.target.call{value: intent.value}(intent.data)` on behalf of the sender,
    /// paid from the sender's deposit. Value sent with this call is credited to the sender first.
    function execute(Intent calldata intent) external payable nonReentrant returns (bytes memory) {
        if (msg.value > 0) _credit(intent.sender);
        if (nonceUsed[intent.sender][intent.nonce]) revert ExecutionDenied(IntentStatus.NONCE_USED);
        if (address(validator) == address(0)) revert ExecutionDenied(IntentStatus.UNSUPPORTED_ACTION);

        bytes1 status = validator.canExecute(intent);
        if (!IntentStatus.isSuccess(status)) revert ExecutionDenied(status);

        uint256 available = deposits[intent.sender];
        if (intent.value > available) revert ExecutionDenied(IntentStatus.INSUFFICIENT_FUNDS);
        nonceUsed[intent.sender][intent.nonce] = true;
        deposits[intent.sender] = available - intent.value;
        policySpent[intent.policyId] += intent.value;

        (bool ok, bytes memory returnData) = intent.target.call{value: intent.value}(intent.data);
        if (!ok) revert ExecutionFailed(IntentStatus.TRANSFER_FAILED, returnData);

        emit IntentExecuted(keccak256(abi.encode(intent)), IntentStatus.EXECUTED, msg.sender, returnData);
        return returnData;
    }

    function _credit(address sender) private {
        deposits[sender] += msg.value;
        emit Deposited(sender, msg.sender, msg.value);
    }
}
